import { spawnServerProcess } from './server-process.ts';
const s = spawnServerProcess([], { SNAPSHOT_INTERVAL_MS: '0' }, process.argv[2]);
const seen: string[] = [];
s.onLog((e) => { seen.push(`${Date.now()} ${e.time} ${e.msg}`); if (e.msg === 'replaying journal') setTimeout(() => void s.kill('SIGKILL'), 100); });
await s.ready.catch((e) => console.log('not ready', String(e).slice(0, 80)));
console.log(seen.join('\n'));
