/**
 * `npm start`'s prestart: compiles src/ to dist/ (`npm run build`) when dist/ is missing or
 * older than a source file, so an edit is never run stale; otherwise it only reads timestamps
 * (a few milliseconds). `npm ci` builds through `prepare`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.tsbuildinfo');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let built = 0;
try {
  built = statSync(stamp).mtimeMs;
} catch {
  // never built
}
const sources = Math.max(newestSource(join(root, 'src')), statSync(join(root, 'tsconfig.json')).mtimeMs, statSync(join(root, 'tsconfig.build.json')).mtimeMs);
if (sources > built) {
  const run = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  // tsc (incremental) rewrites only what changed: the stamp says when the sources were last compiled.
  const now = new Date();
  utimesSync(stamp, now, now);
}
