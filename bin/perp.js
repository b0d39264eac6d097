#!/usr/bin/env node
// The `perp` command of the package (src/cli/main.ts), run from source with no build step: its
// sources bundled by esbuild (src/transport/source-bundle.ts, remade only after an edit), which
// starts in a third of the time loading them through tsx took. source-bundle.ts itself is made
// JavaScript here by esbuild's type stripping (milliseconds), written beside the bundles it
// makes, where its package imports resolve.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/transport/source-bundle.ts', import.meta.url);
const ts = readFileSync(source, 'utf8');
const cache = new URL('../node_modules/.cache/perp-bundles/', import.meta.url);
// Named by the TypeScript it comes from: once made, a start runs no esbuild at all.
const file = new URL(`source-bundle-${createHash('sha256').update(ts).digest('hex').slice(0, 16)}.mjs`, cache);
if (!existsSync(file)) {
  // Loaded only here: a start that finds the file loads no esbuild either.
  const { transformSync } = await import('esbuild');
  const { code } = transformSync(ts, { loader: 'ts', format: 'esm', target: 'node20' });
  const js = code.replaceAll(['import', 'meta', 'url'].join('.'), JSON.stringify(source.href));
  mkdirSync(cache, { recursive: true });
  // source-bundle's writeWhole, inlined: this writes the very module that holds it, so it cannot be imported yet.
  const partial = `${fileURLToPath(file)}.${process.pid}.partial`;
  writeFileSync(partial, js);
  renameSync(partial, file);
}
const { runnableModule } = await import(file.href);
await import(runnableModule(new URL('../src/cli/main.ts', import.meta.url)).href);
