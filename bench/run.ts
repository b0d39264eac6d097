/** `npm run bench`: every `bench:<name>` script of package.json in turn, in its own process. */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
let failed = 0;
for (const name of Object.keys(pkg.scripts).filter((s) => s.startsWith('bench:'))) {
  const run = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
