/**
 * The shape of src/, checked from the imports themselves (type imports included, since a type
 * import is a dependency a reader follows just the same):
 *  - no import circle between files;
 *  - no arrow from a core (engine, ledger, conditional, numeric) or from the application state
 *    machine (app/) up to an adapter (what does I/O, starts threads or processes, or wires them),
 *    nor to anything else that is not pure: they import only pure rooms, which import only each
 *    other (`PURE`);
 *  - every file that imports an I/O package is listed as an adapter;
 *  - every "May import:" line is true, both ways.
 *
 * The header convention. A file's header comment may carry one "May import:" sentence, running
 * to the first full stop that ends a sentence (outside parentheses). It is a list of names
 * separated by commas; each name may be followed by one remark in parentheses. A name is:
 *  - `room/`: any file of that folder of src/ (`./` and `../room/` relative to the file);
 *  - `room/file`, or `room` for the folder's index.ts, or a file at the top of src/ (`pipeline`);
 *    `./file` and `../room` relative to the file;
 *  - a package of package.json or a built-in (`lmdb`, `@noble/hashes`, `node:fs`); a subpath
 *    (`viem/accounts`) names only imports of that subpath;
 *  - `nothing`, alone.
 * Anything else is an error, so prose goes in a sentence of its own. A remark after a file or a
 * package says why or how much and is not read, except `(type)`, `(types)` or `(types only)`:
 * then every import of it must be type-only. A remark after a folder names modules of that
 * folder, separated by commas, each optionally followed by `types` (type-only):
 * `http/ (errors, uws types)` says http/errors and http/uws (types), and nothing else of http/.
 * Both ways: every import of the file is named, and every name is imported (a folder by at least
 * one import from it). A pure room's header names a whole folder only for its own.
 * A folder's index.ts line speaks for the folder: every import that leaves the folder, from any
 * of its files (a subfolder's too, unless that has an index line of its own), is named there, and
 * every name there is imported by one of them. A file with a line of its own is held to both; a
 * file without is governed by its folder's alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import type { Node } from '@babel/types';

const src = fileURLToPath(new URL('../src', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, string> | undefined>;
const PACKAGES = new Set([
  ...['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((key) => Object.keys(manifest[key] ?? {})),
  ...builtinModules.filter((m) => !m.includes('/')).map((m) => `node:${m}`),
]);

/** Rooms are named by their path under src/ without `.ts`: `engine/types`, `pipeline`; a folder by its path and `/`. */
const CORES = ['engine/', 'ledger/', 'conditional/', 'numeric/'];
const APPLICATION = ['app/'];
/**
 * What the cores and the application may import: rooms that do no I/O and no work as they load
 * (docs/architecture.md "Rooms", the pure column). auth/ and config/ are not pure as rooms
 * (auth/keccak compiles WebAssembly as it loads, config/process reads files), these modules of
 * theirs are: auth's journaled nonce and delegation stores with their admission step and codes,
 * and the markets' parameters. Each pure file is checked, so what a pure room reaches is pure too.
 */
const PURE = [...CORES, ...APPLICATION, 'types/', 'config/market', 'config/market-changes', 'auth/codes', 'auth/nonces', 'auth/delegation', 'auth/admission'];
/** The one package a pure room may import: a hash, computed when asked (numeric/state-hash). */
const PURE_PACKAGES = ['node:crypto'];
/** The adapters: what does I/O, starts threads or processes, or wires them. */
const ADAPTERS = [
  'http/', 'ws/', 'journal/', 'history/', 'transport/', 'sequencer/', 'storage/', 'client/', 'cli/', 'demo/', 'replication/',
  'web/', 'auth/signature-pool', 'auth/signature-worker', 'config/process', 'config/preflight',
  'pipeline', 'gateway-ports', 'main', 'metrics', 'log',
];
/**
 * Packages that do I/O or start threads: a file importing one (not for types only) is an adapter.
 * Not node:net, which config/ip-address imports for `isIP` alone.
 */
const IO_PACKAGES = [
  'node:fs', 'node:child_process', 'node:worker_threads', 'lmdb', 'piscina', 'pino', 'prom-client', 'ws', 'esbuild',
  '@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial', '@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv',
];

interface Import {
  /** `engine/types` for a file of src/, the package name (`lmdb`, `node:fs`) otherwise. */
  target: string;
  /** As written, for a package: `viem/accounts`, `@noble/hashes/sha3.js`. */
  specifier: string;
  internal: boolean;
  typeOnly: boolean;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const nameOf = (path: string): string => relative(src, path).replace(/\\/g, '/').replace(/\.ts$/, '');

function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier.split('/')[0];
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The imports of one file, read from its syntax tree (@babel/parser with its TypeScript plugin:
 * the typescript package's own compiler is native from version 7 and has no parser in
 * JavaScript to call). Each declaration, `export … from`, `import()` and `import('…')` type.
 */
function importsOf(path: string, text: string): Import[] {
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    if (specifier.startsWith('.')) {
      found.push({ target: nameOf(resolve(dirname(path), specifier)), specifier, internal: true, typeOnly });
    } else found.push({ target: packageOf(specifier), specifier, internal: false, typeOnly });
  };
  /** Every specifier of the list names a type (`import { type A, type B }`): the import is type-only as a whole. */
  const allTypes = (specifiers: readonly { type: string; importKind?: string | null; exportKind?: string | null }[]): boolean =>
    specifiers.length > 0 && specifiers.every((s) => (s.type === 'ImportSpecifier' && s.importKind === 'type') || (s.type === 'ExportSpecifier' && s.exportKind === 'type'));
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Node;
    if (n.type === 'ImportDeclaration') add(n.source.value, n.importKind === 'type' || allTypes(n.specifiers));
    else if ((n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') && n.source) add(n.source.value, n.exportKind === 'type' || (n.type === 'ExportNamedDeclaration' && allTypes(n.specifiers)));
    else if (n.type === 'ImportExpression' && n.source.type === 'StringLiteral') add(n.source.value, false);
    else if (n.type === 'TSImportType') add(n.source.value, true);
    for (const [key, child] of Object.entries(n)) if (key !== 'loc' && !key.endsWith('Comments')) visit(child);
  };
  visit(parse(text, { sourceType: 'module', plugins: ['typescript'] }).program);
  return found;
}

/** The "May import:" sentence of a header comment (to its full stop outside parentheses), or undefined when it has none. */
function mayImportSentence(text: string): string | undefined {
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
  if (header === undefined) return undefined;
  const flat = header.replace(/\n\s*\*/g, ' ');
  const at = flat.search(/May import:/i);
  if (at < 0) return undefined;
  const rest = flat.slice(at + 'May import:'.length);
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '(') depth++;
    else if (rest[i] === ')') depth--;
    else if (rest[i] === '.' && depth === 0 && (i + 1 === rest.length || /\s/.test(rest[i + 1]))) return rest.slice(0, i);
  }
  return rest;
}

/** `text` cut at its commas outside parentheses, each part trimmed. */
function listOf(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** One name of a "May import:" line. */
interface Name {
  /** As the header writes it, for the messages. */
  text: string;
  kind: 'file' | 'folder' | 'package';
  /** `engine/types`; `engine/` for a folder; the specifier for a package. */
  allows: string;
  typesOnly: boolean;
}

const files = sourceFiles(src).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { name: nameOf(path), folder: dirname(nameOf(path)).replace(/^\.$/, ''), sentence: mayImportSentence(text), imports: importsOf(path, text) };
});
const byName = new Map(files.map((f) => [f.name, f]));
const isFolder = (name: string): boolean => statSync(join(src, name), { throwIfNoEntry: false })?.isDirectory() ?? false;
/** The file of src/ a room name without `/` stands for: the file itself, or the folder's index. */
const fileNamed = (name: string): string | undefined => (byName.has(name) ? name : byName.has(`${name}/index`) ? `${name}/index` : undefined);

/** The names of a "May import:" sentence written in `folder`, and what in it is not a name. */
function namesOf(sentence: string, folder: string): { names: Name[]; errors: string[] } {
  const names: Name[] = [];
  const errors: string[] = [];
  const items = listOf(sentence);
  if (items.length === 1 && items[0] === 'nothing') return { names, errors };
  for (const item of items) {
    const parts = /^([@\w.:/-]+)(?:\s*\(([^()]*)\))?$/.exec(item);
    if (parts === null) {
      errors.push(`"${item}" is not a name with an optional remark in parentheses`);
      continue;
    }
    const [, word, remark] = parts;
    const relativeWord = word.startsWith('./') || word.startsWith('../');
    const room = relativeWord ? relative(src, resolve(src, folder, word)).replace(/\\/g, '/') : word.replace(/\/$/, '');
    if (word.endsWith('/') && isFolder(room)) {
      if (remark === undefined) names.push({ text: word, kind: 'folder', allows: `${room}/`, typesOnly: false });
      else for (const entry of listOf(remark)) {
        const module = /^([\w.-]+(?:\/[\w.-]+)*)( types)?$/.exec(entry);
        const file = module === null ? undefined : fileNamed(`${room}/${module[1]}`);
        if (module === null || file === undefined) errors.push(`"${entry}" in the list after ${word} is not a module of ${room}/ (with "types" after it for types only)`);
        else names.push({ text: `${word} (${entry})`, kind: 'file', allows: file, typesOnly: module[2] !== undefined });
      }
      continue;
    }
    const typesOnly = remark !== undefined && /^(types?|types only)$/i.test(remark.trim());
    const file = word.endsWith('/') ? undefined : fileNamed(room);
    // A path that starts with a folder of src/ (`ws/feeds`) is never a package's subpath (the `ws` package).
    const internal = relativeWord || file !== undefined || (word.includes('/') && isFolder(word.split('/')[0]));
    if (file !== undefined && PACKAGES.has(word)) errors.push(`"${word}" is both a file of src/ and a package`);
    else if (file !== undefined) names.push({ text: word, kind: 'file', allows: file, typesOnly });
    else if (!internal && PACKAGES.has(packageOf(word))) names.push({ text: word, kind: 'package', allows: word, typesOnly });
    else errors.push(`"${word}" is neither a file or folder of src/ nor a package of package.json (write prose in a sentence of its own)`);
  }
  return { names, errors };
}

const lines = new Map(files.flatMap((f) => (f.sentence === undefined ? [] : [[f.name, namesOf(f.sentence, f.folder)] as const])));
const inRoom = (name: string, rooms: readonly string[]): boolean => rooms.some((r) => (r.endsWith('/') ? name.startsWith(r) : name === r));

test('every relative import names a file of src/', () => {
  const broken = files.flatMap((f) => f.imports.filter((i) => i.internal && !byName.has(i.target)).map((i) => `${f.name} → ${i.target}`));
  assert.deepEqual(broken, []);
});

test('no import circle between files of src/', () => {
  // Tarjan's strongly connected components: a component of more than one file is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[] = [];
  let counter = 0;
  const connect = (name: string): void => {
    index.set(name, counter);
    low.set(name, counter++);
    stack.push(name);
    onStack.add(name);
    for (const imp of byName.get(name)!.imports) {
      if (!imp.internal || !byName.has(imp.target)) continue;
      if (!index.has(imp.target)) {
        connect(imp.target);
        low.set(name, Math.min(low.get(name)!, low.get(imp.target)!));
      } else if (onStack.has(imp.target)) low.set(name, Math.min(low.get(name)!, index.get(imp.target)!));
    }
    if (low.get(name) === index.get(name)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== name);
      if (component.length > 1) circles.push(component.sort().join(' ↔ '));
    }
  };
  for (const f of files) if (!index.has(f.name)) connect(f.name);
  assert.deepEqual(circles, [], `import circles:\n${circles.join('\n')}`);
});

test('no import from a core or the application state machine up to an adapter, nor to anything not pure', () => {
  const impure = files
    .filter((f) => inRoom(f.name, PURE))
    .flatMap((f) =>
      f.imports.flatMap((i) => {
        if (!i.internal) return PURE_PACKAGES.includes(i.target) ? [] : [`${f.name} → ${i.target}: a package (a pure room imports only ${PURE_PACKAGES.join(', ')})`];
        if (inRoom(i.target, PURE)) return [];
        return [`${f.name} → ${i.target}: ${inRoom(i.target, ADAPTERS) ? 'up to an adapter' : 'not a pure room (see PURE)'}`];
      }),
    );
  assert.deepEqual(impure, [], impure.join('\n'));
  const coreToApplication = files
    .filter((f) => inRoom(f.name, CORES))
    .flatMap((f) => f.imports.filter((i) => i.internal && inRoom(i.target, APPLICATION)).map((i) => `${f.name} → ${i.target}: a core up to the application`));
  assert.deepEqual(coreToApplication, [], coreToApplication.join('\n'));
});

test('a file that imports an I/O package is an adapter; the room lists name files of src/', () => {
  const unlisted = files
    .filter((f) => !inRoom(f.name, ADAPTERS))
    .flatMap((f) => f.imports.filter((i) => !i.internal && !i.typeOnly && IO_PACKAGES.includes(i.target)).map((i) => `${f.name} imports ${i.target}, and is not in ADAPTERS`));
  assert.deepEqual(unlisted, [], unlisted.join('\n'));
  const stale = [...PURE, ...ADAPTERS].filter((r) => !files.some((f) => inRoom(f.name, [r])));
  assert.deepEqual(stale, [], `in PURE or ADAPTERS, naming no file of src/: ${stale.join(', ')}`);
  const unknown = IO_PACKAGES.filter((p) => !PACKAGES.has(p));
  assert.deepEqual(unknown, [], `in IO_PACKAGES, not a package of package.json: ${unknown.join(', ')}`);
  const both = files.filter((f) => inRoom(f.name, PURE) && inRoom(f.name, ADAPTERS)).map((f) => f.name);
  assert.deepEqual(both, [], `both pure and an adapter: ${both.join(', ')}`);
});

test('every "May import:" line is a list of files, folders and packages', () => {
  const unreadable = [...lines].flatMap(([name, line]) => line.errors.map((e) => `${name}: "May import:" ${e}`));
  assert.deepEqual(unreadable, [], unreadable.join('\n'));
});

/** The nearest folder, `folder` or above, whose index.ts has a "May import:" line. */
function governingFolder(folder: string): string | undefined {
  for (let at = folder; at !== ''; at = dirname(at).replace(/^\.$/, '')) if (lines.has(`${at}/index`)) return at;
  return undefined;
}

test('every "May import:" line is true to the imports, both ways', () => {
  const untrue: string[] = [];
  const matches = (name: Name, imp: Import): boolean => {
    if (name.kind === 'package') return !imp.internal && (imp.specifier === name.allows || imp.target === name.allows);
    return imp.internal && (name.kind === 'folder' ? imp.target.startsWith(name.allows) : imp.target === name.allows);
  };
  /** Every import named, values only where the line allows values. */
  const named = (who: string, names: Name[], imports: Import[]): void => {
    for (const imp of imports) {
      const by = names.filter((n) => matches(n, imp));
      const what = imp.internal ? imp.target : imp.specifier;
      if (by.length === 0) untrue.push(`${who} imports ${what}, not named on its "May import:" line`);
      else if (!imp.typeOnly && by.every((n) => n.typesOnly)) untrue.push(`${who} imports values from ${what}, which its line allows for types only`);
    }
  };
  /** Every name imported. */
  const imported = (who: string, names: Name[], imports: Import[]): void => {
    for (const name of names) if (!imports.some((imp) => matches(name, imp))) untrue.push(`${who}'s "May import:" line names ${name.text}, which it does not import`);
  };
  /** For each folder whose index.ts has a line, the imports that leave it. */
  const leaving = new Map([...lines.keys()].filter((n) => n.endsWith('/index')).map((n) => [dirname(n), [] as Import[]]));
  for (const f of files) {
    const own = lines.get(f.name);
    const governing = f.folder === '' ? undefined : governingFolder(f.folder);
    if (own !== undefined && !f.name.endsWith('/index')) {
      named(f.name, own.names, f.imports);
      imported(f.name, own.names, f.imports);
      const pure = inRoom(f.name, PURE);
      for (const n of own.names) if (pure && n.kind === 'folder' && n.allows !== `${f.folder}/`) untrue.push(`${f.name}'s "May import:" line names the whole of ${n.text}: a pure room names the modules it imports`);
    }
    if (governing === undefined) {
      if (own === undefined && f.imports.length > 0) untrue.push(`${f.name} has no "May import:" line, nor has its folder`);
      continue;
    }
    // The folder's line speaks for every import that leaves the folder.
    const out = f.imports.filter((i) => !(i.internal && i.target.startsWith(`${governing}/`)));
    named(`${f.name} (by ${governing}/index)`, lines.get(`${governing}/index`)!.names, out);
    leaving.get(governing)!.push(...out);
  }
  for (const [folder, imports] of leaving) {
    const { names } = lines.get(`${folder}/index`)!;
    imported(`${folder}/index`, names, imports);
    for (const n of names) if (inRoom(`${folder}/index`, PURE) && n.kind === 'folder') untrue.push(`${folder}/index's "May import:" line names the whole of ${n.text}: a pure room names the modules it imports`);
  }
  const messages = [...new Set(untrue)];
  assert.deepEqual(messages, [], messages.join('\n'));
});

/**
 * The room of a file: its folder under src/ (`http`, `sequencer`), or for a file at the top of
 * src/ the file itself (`pipeline`, `gateway-ports`).
 */
const roomOf = (name: string): string => name.split('/')[0];

/** Every arrow between two rooms, each with the imports that draw it (`http/ports → app/commands`). */
function roomArrows(): Map<string, Map<string, string[]>> {
  const arrows = new Map<string, Map<string, string[]>>();
  for (const f of files) {
    for (const imp of f.imports) {
      const [from, to] = [roomOf(f.name), roomOf(imp.target)];
      if (!imp.internal || from === to) continue;
      const targets = arrows.get(from) ?? arrows.set(from, new Map()).get(from)!;
      targets.set(to, [...(targets.get(to) ?? []), `${f.name} → ${imp.target}`]);
    }
  }
  return arrows;
}

/** The rooms `room` reaches by following arrows, itself only if a circle leads back to it. */
function reachedFrom(room: string, arrows: Map<string, Map<string, string[]>>): Set<string> {
  const reached = new Set<string>();
  const next = [room];
  while (next.length > 0) {
    for (const to of arrows.get(next.pop()!)?.keys() ?? []) {
      if (reached.has(to)) continue;
      reached.add(to);
      next.push(to);
    }
  }
  return reached;
}

test('no import circle between rooms (the folders of src/)', () => {
  // Files may each import one way and the rooms still go round (http/routes/openapi → ws/asyncapi,
  // ws/feeds → http/errors): then neither room can be read, tested or moved without the other.
  const arrows = roomArrows();
  const reach = new Map([...arrows.keys()].map((room) => [room, reachedFrom(room, arrows)]));
  const circles = new Set<string>();
  for (const [room, reached] of reach) {
    if (!reached.has(room)) continue;
    const members = [...reached].filter((other) => reach.get(other)?.has(room)).sort();
    const inside = members.flatMap((from) => members.flatMap((to) => arrows.get(from)?.get(to) ?? []));
    circles.add(`${members.join(' ↔ ')}:\n  ${inside.join('\n  ')}`);
  }
  assert.deepEqual([...circles], [], `circles between rooms:\n${[...circles].join('\n')}`);
});
