/**
 * Every error text the API document lists is typed once (docs/architecture.md "An error text is
 * written once"): in the code table of the part that refuses with it (auth, ledger, conditional,
 * engine, app codes, and the gateway's own in http/errors), or in the module of src/http that
 * produces it and exports it (a `DocumentedError`, a `*_TEXT` constant, a field's `x-error`).
 * A declaration's `errors:` list, a schema's `x-error` and a handler's refusal name that one
 * text (`documentedError(code)`, `saying(TEXT, …)`, the constant); a second literal that a
 * listed text could come from is a copy that can drift from what a client receives.
 *
 * The listed texts are read from the document itself (GET /openapi.json as http/routes/openapi
 * builds it from http/endpoints): each 4xx/5xx example and each `x-error`. The literals are
 * every string and template literal of src/http and of the code tables; a literal "writes" a
 * listed text when it is that text, or when filling its slots (`<name>`, `${…}`) can give it —
 * `'signer must be a 0x-prefixed 20-byte hex address'` and `'<name> must be a 0x-prefixed
 * 20-byte hex address'` write the same text. A slotted literal with under 12 characters of its
 * own (`'Invalid <field>'`, `'<field> must …'`) says too little to be a copy and is not counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import type { Node } from '@babel/types';
import { openApiDocument } from '../../src/http/routes/openapi.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const CODE_TABLES = ['auth/codes.ts', 'ledger/codes.ts', 'conditional/codes.ts', 'engine/codes.ts', 'app/codes.ts'];
/** A slotted literal's own text must be at least this long to count as writing a listed text. */
const LEAST_OWN_TEXT = 12;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

interface Literal {
  at: string;
  /** The literal as typed; none for a template with `${…}` in it. */
  text?: string;
  /** For a literal with slots and enough text of its own, the texts filling them can give. */
  filled?: RegExp;
}

const SLOT = /<[\w|]+>/g;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `'<name> must be…'` or `` `Market ${symbol} not found` `` (its `parts` around the `${…}`), with the texts it can be filled to. */
function literal(parts: readonly string[], at: string): Literal {
  const pieces = parts.flatMap((part, i) => [...(i > 0 ? [null] : []), ...part.split(SLOT).flatMap((piece, j) => (j > 0 ? [null, piece] : [piece]))]);
  const text = parts.length === 1 ? parts[0] : undefined;
  const own = pieces.filter((p): p is string => p !== null).join('');
  if (!pieces.includes(null) || own.length < LEAST_OWN_TEXT) return { at, text };
  return { at, text, filled: new RegExp(`^${pieces.map((p) => (p === null ? '.+' : escape(p))).join('')}$`, 's') };
}

function literalsOf(file: string): Literal[] {
  const out: Literal[] = [];
  const name = relative(src, file);
  const visit = (node: Node | null | undefined): void => {
    if (node === null || node === undefined || typeof node.type !== 'string') return;
    const at = `src/${name}:${node.loc?.start.line}`;
    if (node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration') return;
    if (node.type === 'StringLiteral') out.push(literal([node.value], at));
    if (node.type === 'TemplateLiteral') out.push(literal(node.quasis.map((q) => q.value.cooked ?? q.value.raw), at));
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key.endsWith('Comments')) continue;
      if (Array.isArray(value)) for (const child of value) visit(child as Node);
      else if (value !== null && typeof value === 'object') visit(value as Node);
    }
  };
  visit(parse(readFileSync(file, 'utf8'), { sourceType: 'module', plugins: ['typescript'] }).program as unknown as Node);
  return out;
}

/** Every 4xx/5xx text of every operation, and every field's `x-error`, of the document. */
function listedTexts(document: unknown): Set<string> {
  const texts = new Set<string>();
  const visit = (value: unknown, key: string, inErrorResponse: boolean): void => {
    if (typeof value === 'string') {
      if (key === 'x-error' || (inErrorResponse && key === 'value')) texts.add(value);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [k, v] of Object.entries(value)) visit(v, k, inErrorResponse || (key === 'responses' && /^[45]\d\d$/.test(k)));
  };
  visit(document, '', false);
  return texts;
}

const LITERALS = [...walk(join(src, 'http')), ...CODE_TABLES.map((f) => join(src, f))].flatMap(literalsOf);
const LISTED = listedTexts(openApiDocument(ENDPOINTS));

/** Where `text` is typed: each literal that is it, or that fills to it. */
const writings = (text: string, literals: readonly Literal[]) => literals.filter((l) => l.text === text || l.filled?.test(text) === true).map((l) => l.at);

test('the document lists error texts, and finds each of them typed where it is produced', () => {
  assert.ok(LISTED.size > 100, `${LISTED.size} texts listed`);
  assert.ok(LISTED.has('Invalid subaccount index') && LISTED.has('Transfer amount exceeds available balance'));
  const unwritten = [...LISTED].filter((text) => writings(text, LITERALS).length === 0);
  assert.deepEqual(unwritten, [], 'a listed text no literal of src/http or a code table writes');
});

test('every error text the document lists is typed once in src/http and the code tables', () => {
  const twice = [...LISTED].flatMap((text) => {
    const at = writings(text, LITERALS);
    return at.length > 1 ? [`${JSON.stringify(text)} at ${at.join(', ')}`] : [];
  });
  assert.deepEqual(twice, [], 'typed more than once: name the one text (documentedError(code), saying(TEXT, …), the exported constant)');
});

test('a copy is found: a code table\'s text typed again, an exported template filled by hand; a short slotted text is not one', () => {
  const table = literal(['Transfer amount exceeds available balance'], 'src/ledger/codes.ts:1');
  const template = literal(['<name> must be a 0x-prefixed 20-byte hex address'], 'src/http/account-query.ts:1');
  const market = literal(['Market ', ' not found'], 'src/http/errors.ts:1');
  const copy = (text: string) => literal([text], 'src/http/routes/copy.ts:1');
  assert.deepEqual(writings('Transfer amount exceeds available balance', [table, copy('Transfer amount exceeds available balance')]), ['src/ledger/codes.ts:1', 'src/http/routes/copy.ts:1']);
  assert.equal(writings('signer must be a 0x-prefixed 20-byte hex address', [template, copy('signer must be a 0x-prefixed 20-byte hex address')]).length, 2);
  assert.equal(writings('Market <symbol> not found', [market, copy('Market BTC not found')]).length, 1);
  assert.equal(writings('Market BTC not found', [market, copy('Market BTC not found')]).length, 2);
  assert.deepEqual(writings('Invalid signature', [literal(['Invalid <field>'], 'src/auth/codes.ts:1')]), []);
});
