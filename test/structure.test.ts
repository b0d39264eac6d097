/**
 * The shape of src/, checked from the imports themselves (type imports included, since a type
 * import is a dependency a reader follows just the same):
 *  - no import circle between files;
 *  - no arrow from a core (engine, ledger, conditional, numeric) or from the application state
 *    machine (app/) up to an adapter (the gateway, the feeds, storage, history, the thread
 *    transport, the sequencer, the client and the processes that wire them);
 *  - every "May import:" line is true.
 *
 * The header convention (the one the module headers already follow): a file's header comment
 * may carry one "May import:" sentence, running to the first full stop that ends a sentence.
 * It names what the file imports: `room/` (anything in that folder), `room/file` (one file),
 * `room` (its index), `./file` or `../room` (relative to the file), a package (`lmdb`, `@noble/hashes`, `node:fs`), or `nothing`. A
 * folder's index.ts header speaks for the folder: every import of any of its files that
 * leaves the folder must be named there. A file without its own line is governed by its
 * folder's; an index names only what leaves the folder. Words in parentheses say why or how much (`engine/types (types only)`); when they
 * are just `type`, `types` or `types only`, the import must be type-only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import type { Node } from '@babel/types';

const src = fileURLToPath(new URL('../src', import.meta.url));

/** Rooms are named by their path under src/ without `.ts`: `engine/types`, `pipeline`. */
const CORES = ['engine/', 'ledger/', 'conditional/', 'numeric/'];
const APPLICATION = ['app/'];
const ADAPTERS = ['http/', 'ws/', 'journal/', 'history/', 'transport/', 'sequencer/', 'storage/', 'client/', 'cli/', 'demo/', 'replication/', 'pipeline', 'main', 'metrics'];

interface Import {
  /** `engine/types` for a file of src/, the package name (`lmdb`, `node:fs`) otherwise. */
  target: string;
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
      found.push({ target: nameOf(resolve(dirname(path), specifier)), internal: true, typeOnly });
    } else found.push({ target: packageOf(specifier), internal: false, typeOnly });
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

interface Rule {
  /** The name of the room a rule token allows, with a trailing `/` for a whole folder. */
  allows: string;
  typesOnly: boolean;
}

/** The "May import:" sentence of a header comment, or undefined when it has none. */
function mayImportLine(text: string): string | undefined {
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
  if (header === undefined) return undefined;
  const flat = header.replace(/\n\s*\*/g, ' ');
  const at = flat.search(/May import:/i);
  if (at < 0) return undefined;
  const rest = flat.slice(at + 'May import:'.length);
  const end = rest.search(/\.(\s|$)/);
  return end < 0 ? rest : rest.slice(0, end);
}

function rulesOf(line: string, folder: string): Rule[] {
  const rules: Rule[] = [];
  // A token is a path-like word, optionally followed by a parenthesised remark.
  const token = /((?:\.\.?\/)*@?[a-z][\w.:-]*(?:\/[\w.*-]*)*)(\s*\(([^)]*)\))?/gi;
  for (const match of line.matchAll(token)) {
    let allows = match[1].replace(/\*$/, '');
    if (allows.startsWith('.')) {
      const trailing = allows.endsWith('/') ? '/' : '';
      allows = relative(src, resolve(src, folder, allows)).replace(/\\/g, '/') + trailing;
    }
    const remark = match[3] ?? '';
    rules.push({ allows, typesOnly: /^types?( only)?$/i.test(remark.trim()) });
  }
  return rules;
}

function allowedBy(rules: Rule[], imp: Import): Rule | undefined {
  return rules.find((r) => {
    if (!imp.internal) return packageOf(r.allows) === imp.target;
    // `room/` is the folder; `room` alone is its index.
    return r.allows.endsWith('/') ? imp.target.startsWith(r.allows) : r.allows === imp.target || `${r.allows}/index` === imp.target;
  });
}

const files = sourceFiles(src).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { name: nameOf(path), folder: dirname(nameOf(path)).replace(/^\.$/, ''), line: mayImportLine(text), imports: importsOf(path, text) };
});
const byName = new Map(files.map((f) => [f.name, f]));

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

test('no import from a core or the application state machine up to an adapter', () => {
  const inRoom = (name: string, room: string[]): boolean => room.some((r) => (r.endsWith('/') ? name.startsWith(r) : name === r));
  const upward = files
    .filter((f) => inRoom(f.name, CORES) || inRoom(f.name, APPLICATION))
    .flatMap((f) => f.imports.filter((i) => i.internal && inRoom(i.target, ADAPTERS)).map((i) => `${f.name} → ${i.target}`));
  assert.deepEqual(upward, []);
  const coreToApplication = files
    .filter((f) => inRoom(f.name, CORES))
    .flatMap((f) => f.imports.filter((i) => i.internal && inRoom(i.target, APPLICATION)).map((i) => `${f.name} → ${i.target}`));
  assert.deepEqual(coreToApplication, []);
});

function nearestFolderLine(folder: string): { line: string; folder: string } | undefined {
  for (let at = folder; at !== '' && at !== '.'; at = dirname(at).replace(/^\.$/, '')) {
    const line = byName.get(`${at}/index`)?.line;
    if (line !== undefined) return { line, folder: at };
  }
  return undefined;
}

test('every "May import:" line is true to the imports', () => {
  const untrue: string[] = [];
  const check = (who: string, rules: Rule[], imp: Import): void => {
    const rule = allowedBy(rules, imp);
    if (rule === undefined) untrue.push(`${who} imports ${imp.target}, not named on its "May import:" line`);
    else if (rule.typesOnly && !imp.typeOnly) untrue.push(`${who} imports values from ${imp.target}, which its line allows for types only`);
  };
  for (const f of files) {
    const own = f.line;
    const isIndex = f.name.endsWith('/index');
    // An index speaks for its folder: what it takes from inside the folder needs no naming.
    const named = isIndex ? f.imports.filter((i) => !(i.internal && i.target.startsWith(`${f.folder}/`))) : f.imports;
    if (own !== undefined) for (const imp of named) check(f.name, rulesOf(own, f.folder), imp);
    const governing = f.folder === '' ? undefined : nearestFolderLine(f.folder);
    if (governing === undefined) {
      if (own === undefined && f.imports.length > 0) untrue.push(`${f.name} has no "May import:" line, nor has its folder`);
      continue;
    }
    // The folder's line speaks for every import that leaves the folder.
    if (f.name === `${governing.folder}/index` && own !== undefined) continue;
    for (const imp of f.imports) {
      if (imp.internal && imp.target.startsWith(`${governing.folder}/`)) continue;
      check(`${f.name} (by ${governing.folder}/index)`, rulesOf(governing.line, governing.folder), imp);
    }
  }
  assert.deepEqual(untrue, [], untrue.join('\n'));
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
