/**
 * What a thread or test process started from source runs (transport/source-bundle): the bundle
 * of its entry is faithful — each source's `import.meta.url` is that source's own, so a module
 * that finds a file beside itself finds it — and it is never stale: an edit of any source it
 * was made from makes the next process run a new bundle, while an unchanged tree reuses it.
 * Each step runs in a process of its own, as a test process or `perp` does (a process keeps
 * the bundles it made).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_BUNDLE = pathToFileURL(join(ROOT, 'src/transport/source-bundle.ts')).href;

/** In a new process: the bundle `runnableModule` gives for `entry`, and what that bundle exports. */
function runFresh(entry: string): { bundle: string; url: string; beside: string; value: number } {
  const script = `
    const { runnableModule } = await import(${JSON.stringify(SOURCE_BUNDLE)});
    const bundle = runnableModule(new URL(${JSON.stringify(pathToFileURL(entry).href)}));
    const m = await import(bundle.href);
    console.log(JSON.stringify({ bundle: bundle.href, url: m.url, beside: m.beside, value: m.value }));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

test('a bundle keeps each source its own URL, is reused while nothing changed, and is made again after an edit', (t) => {
  const dir = join(ROOT, 'tmp', `source-bundle-${process.pid}`);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'entry.ts');
  const dep = join(dir, 'lib', 'dep.ts');
  writeFileSync(entry, `import { beside, value } from './lib/dep.ts';\nexport const url: string = import.meta.url;\nexport { beside, value };\n`);
  writeFileSync(dep, `export const value: number = 1;\nexport const beside: string = new URL('./data.json', import.meta.url).href;\n`);

  const first = runFresh(entry);
  assert.equal(first.url, pathToFileURL(entry).href, "the entry's import.meta.url is its own");
  assert.equal(first.beside, pathToFileURL(join(dir, 'lib', 'data.json')).href, "an imported source's import.meta.url is its own");
  assert.equal(first.value, 1);
  assert.match(first.bundle, /node_modules\/\.cache\/perp-bundles\/entry-[0-9a-f]{16}\.mjs$/);

  assert.equal(runFresh(entry).bundle, first.bundle, 'nothing changed: the same bundle');

  writeFileSync(dep, `export const value: number = 2;\nexport const beside: string = new URL('./data.json', import.meta.url).href;\n`);
  // The edit's time, unmistakably after the bundle was made (a coarse clock cannot hide it).
  const later = new Date(Date.now() + 2_000);
  utimesSync(dep, later, later);
  const edited = runFresh(entry);
  assert.equal(edited.value, 2, 'an edit of an imported source is in the next bundle');
  assert.notEqual(edited.bundle, first.bundle);
});
