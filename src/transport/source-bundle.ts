/**
 * @module transport/source-bundle
 *
 * A TypeScript entry module as one plain JavaScript file, for a thread or a process started from
 * source (tests, `node --import tsx`, the `perp` command). Node 20 does not carry tsx's loader
 * hooks into worker threads, and a thread or process that loads the sources through them spends
 * most of a second (CPU) resolving and transforming them one import at a time. esbuild bundles
 * the entry and the project's sources it imports into one ES module in a few hundred
 * milliseconds, packages left as imports. Bundles live in node_modules/.cache/perp-bundles/
 * (where their package imports resolve as the sources' do), named by the hash of their content
 * and written aside then renamed, so parallel processes share them; beside each entry's latest
 * bundle, a manifest of the sources it was made from and their modification times lets a
 * process reuse it without running esbuild until one of them changes. Old bundles stay until
 * the cache is cleared (a bundle is about 0.5 MB; the directory is disposable).
 *
 * Faithful to the sources: every `import.meta.url` in a bundled source is replaced by that
 * source's own URL, so a module that locates a file, a worker or a native binding beside itself
 * finds what it would have found unbundled. Compiled runs (`npm start`, from dist/) never bundle.
 *
 * esbuild is loaded only when a bundle is made: a compiled run, or one whose bundles are current,
 * never loads it (about 20 ms).
 *
 * May import: node:crypto, node:fs, node:module, node:path, node:url, esbuild (required only when a bundle is made).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/perp-bundles/');
/** Synchronous, as a thread is started: esbuild is required where a bundle is made, not imported. */
const require = createRequire(import.meta.url);

/** Bundles already made by this process, by entry module. */
const made = new Map<string, URL>();

/**
 * `code` (an esbuild bundle) with each `import.meta.url` replaced by the URL of the source it
 * was written in. esbuild heads each stretch of a module's code with a `// path` comment (the
 * path relative to the repository root; comments of the sources themselves are dropped), so a
 * line belongs to the last such comment above it. (esbuild runs plugins only in its
 * asynchronous API, and a thread is started synchronously.)
 */
function withOwnUrls(code: string): string {
  let source: string | undefined;
  // Spelled in pieces: this file is bundled too, and its own text must not be rewritten.
  const token = ['import', 'meta', 'url'].join('.');
  return code
    .split('\n')
    .map((line) => {
      const marker = /^\/\/ (\S+\.ts)$/.exec(line);
      if (marker !== null) source = marker[1];
      if (!line.includes(token)) return line;
      if (source === undefined) throw new Error(`source-bundle: ${token} before any source marker: ${line}`);
      return line.replaceAll(token, JSON.stringify(pathToFileURL(join(ROOT, source)).href));
    })
    .join('\n');
}

/** True when `file` is compiled JavaScript, started as it is. */
export function isCompiled(file: URL): boolean {
  return !file.pathname.endsWith('.ts');
}

/** What a bundle was made from: each source with its modification time when it was read. */
interface Manifest {
  bundle: string;
  sources: Record<string, number>;
}

function readManifest(path: string): Manifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    if (!existsSync(manifest.bundle)) return undefined;
    for (const [source, mtime] of Object.entries(manifest.sources)) if (statSync(join(ROOT, source)).mtimeMs !== mtime) return undefined;
    return manifest;
  } catch {
    return undefined; // none yet, or a source gone
  }
}

/** Writes `contents` to `path` aside, then renames it: a parallel process never reads half a file. */
function writeWhole(path: string, contents: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

/**
 * The file to run for the entry module `file`: itself when compiled, otherwise its bundle. A
 * bundle is remade when a source it was made from has changed since (its modification time,
 * kept in a manifest beside it): a process that finds a current one starts on it at once (a
 * few stat calls), without running esbuild.
 */
export function runnableModule(file: URL): URL {
  if (isCompiled(file)) return file;
  const known = made.get(file.href);
  if (known !== undefined) return known;
  const entry = fileURLToPath(file);
  const name = basename(entry, '.ts');
  const manifestPath = join(CACHE, `${name}-${createHash('sha256').update(entry).digest('hex').slice(0, 8)}.json`);
  let manifest = readManifest(manifestPath);
  if (manifest === undefined) {
    const { buildSync } = require('esbuild') as typeof Esbuild;
    const startedAt = Date.now();
    const result = buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      absWorkingDir: ROOT,
      // Stack traces name the sources (under --enable-source-maps); the URL rewrite keeps lines.
      sourcemap: 'inline',
      sourcesContent: false,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const sources = Object.fromEntries(Object.keys(result.metafile.inputs).map((source) => [source, statSync(join(ROOT, source)).mtimeMs]));
    const code = withOwnUrls(result.outputFiles[0]!.text);
    const bundle = join(CACHE, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
    mkdirSync(CACHE, { recursive: true });
    if (!existsSync(bundle)) writeWhole(bundle, code);
    manifest = { bundle, sources };
    // A source edited while esbuild ran may be in the bundle as it was: no manifest, made again next time.
    if (Object.values(sources).every((mtime) => mtime < startedAt)) writeWhole(manifestPath, JSON.stringify(manifest));
  }
  const url = pathToFileURL(manifest.bundle);
  made.set(file.href, url);
  return url;
}

/** This process's node options without tsx's loader, which a bundle does not need. */
export function execArgvWithoutTsx(argv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if ((arg === '--import' || arg === '--loader' || arg === '--require') && /\btsx\b/.test(argv[i + 1] ?? '')) i++;
    else if (!/^--(import|loader|require)=.*\btsx\b/.test(arg)) out.push(arg);
  }
  return out;
}
