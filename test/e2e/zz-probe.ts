import { spawnServerProcess } from './server-process.ts';
const t0 = Date.now();
const s = spawnServerProcess([], { SNAPSHOT_INTERVAL_MS: '0' }, process.argv[2]);
const ready = await s.ready;
for (const e of s.log) console.log(e.time - t0, e.msg, e.msg === 'journal replayed' ? JSON.stringify({ c: e.commands, e: e.events, r: e.recoveredEvents }) : '');
await ready.kill('SIGKILL');
