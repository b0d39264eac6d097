/**
 * GET /openapi.json and GET /docs: the OpenAPI 3.1 document of the whole REST API (and beside
 * it GET /asyncapi.json, the streaming feeds' AsyncAPI document, which the feeds build and the
 * gateway is handed: `FeedsDocument`) and a self-contained HTML reference page generated from it
 * (no script, no CDN, no external file).
 *
 * Both are derived from the routes' own declarations (http/endpoint, listed in http/endpoints):
 * the parameters `strictQuery` accepts, the body schemas the validators compile, the response
 * schemas the serializers compile, and every error a route can answer with its status and
 * exact text (plain-text bodies; a `<n>` in a text stands for the value sent), the token's, the
 * signature's and the strict query parser's added from `auth`, `signed`, `query` and
 * `ignoresQuery`. `servers` names the address this server is bound to, then the profile's public
 * address. Built once, at the first request.
 * May import: http/ (schemas, query, endpoint, endpoint-errors, operator-key, uws types).
 */
import * as S from '../schemas.ts';
import { REPEATED_PARAMETER, UNKNOWN_PARAMETER, type QueryParam } from '../query.ts';
import { ENDPOINT_TAGS, route, type DeclaredRoute, type DocumentedError, type Endpoint } from '../endpoint.ts';
import { SIGNED, TOKEN } from '../endpoint-errors.ts';
import { OPERATOR_KEY_FAILURES } from '../operator-key.ts';
import type { HttpReply } from '../uws.ts';

type Schema = Readonly<Record<string, unknown>>;

/** What a 400 `Invalid signature` of a signed write carries besides its text. */
const SIGNATURE_HEADERS = {
  'X-Signed-Message': { description: 'on `Invalid signature`: the typed message the server hashed, compact JSON (bigints as decimal strings)', schema: { type: 'string' } },
  'X-Signature-Recovered': { description: 'on `Invalid signature`, when the signature recovers an address at all: that address', schema: { type: 'string' } },
};

const NULL: Schema = S.NULL_SCHEMA;
const TEXT: Schema = { type: 'string' };

// ── the document ─────────────────────────────────────────────────────────────────────────────

const INTRO = [
  'REST API of a perpetual-futures exchange. Success bodies are JSON; error bodies are plain text with the messages listed per route.',
  'Decimals (prices, quantities, USD amounts, fractions) are strings with no exponent; an input finer than the tick, lot or unit is refused, never rounded. Times: milliseconds for account data and every query filter; seconds for public market-data `time` fields.',
  'Authentication: POST /auth/challenge → sign the message with personal_sign → POST /auth/login → `Authorization: Bearer <token>` on every /account/* route. A caller reads its own subaccounts, or those that delegated `read` to it (`trade` for orders, cancels and margin). Writes (orders, transfers, margin, delegation) also carry an EIP-712 signature (domain and types from GET /config), a nonce and expiresAt (ms).',
  'Budget: 200 requests per second per account (the token’s account, shared across source addresses); public routes per source address. Every response carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`; over budget is 429 with `Retry-After` (seconds).',
].join('\n\n');

/** What the strict query parser (http/query) may answer on `op`: an unknown parameter wherever the query is read, a repeated one where there are parameters. */
function queryErrors(op: Endpoint): readonly DocumentedError[] {
  if (op.ignoresQuery === true) return [];
  return op.query === undefined || op.query.length === 0 ? [UNKNOWN_PARAMETER] : [UNKNOWN_PARAMETER, REPEATED_PARAMETER];
}

function errorResponses(op: Endpoint): Record<string, unknown> {
  const all: DocumentedError[] = [...(op.auth ? TOKEN : []), ...(op.signed ? SIGNED : []), ...queryErrors(op), ...op.errors];
  const byStatus = new Map<number, string[]>();
  for (const [status, text] of all) {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(text)) list.push(text);
    byStatus.set(status, list);
  }
  const out: Record<string, unknown> = {};
  for (const [status, texts] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: texts.map((t) => `\`${t}\``).join('; '),
      ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } } } : {}),
      ...(status === 400 && op.signed ? { headers: SIGNATURE_HEADERS } : {}),
      content: { 'text/plain': { schema: { type: 'string' }, examples: Object.fromEntries(texts.map((t, i) => [`e${i + 1}`, { value: t }])) } },
    };
  }
  return out;
}

function parameters(op: Endpoint): unknown[] {
  const list = (where: 'path' | 'query', params: readonly QueryParam[] = []) =>
    params.map((p) => ({ name: p.name, in: where, required: where === 'path' || p.required, description: p.description, schema: p.schema, ...(p.schema.type === 'array' ? { style: 'form', explode: true } : {}) }));
  return [...list('path', op.pathParams), ...list('query', op.query)];
}

/** Registers a titled schema once under components and answers a `$ref` to it. */
function ref(components: Record<string, unknown>, schema: Schema): Schema {
  const title = schema.title;
  if (typeof title !== 'string') return schema;
  components[title] = schema;
  return { $ref: `#/components/schemas/${title}` };
}

/** A full page of a history listing (http/cursor). */
const CURSOR_HEADER = {
  'X-Next-Cursor': { description: 'on a full page: send it back as `cursor` (same other parameters) for the entries that follow; absent on the last page', schema: { type: 'string' } },
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'requests per second of the budget this request spent', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'requests left in the current burst', schema: { type: 'integer' } },
};

export function openApiDocument(endpoints: readonly Endpoint[], servers: Servers = []): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of endpoints) {
    if (op.hidden === true) continue;
    const success = op.contentType !== undefined && op.contentType !== 'application/json'
      ? { description: op.contentType === 'text/html' ? 'HTML' : 'text', content: { [op.contentType]: { schema: TEXT } } }
      : { description: op.response === NULL ? '`null`: the write is durable' : 'OK', headers: op.pages === true ? { ...RATE_HEADERS, ...CURSOR_HEADER } : RATE_HEADERS, content: { 'application/json': { schema: ref(schemas, op.response) } } };
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      operationId: `${op.method}${op.path.replace(/[{}]/g, '').split(/[/.]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`,
      security: op.auth ? [{ bearer: [] }] : op.operator ? [{ operatorKey: [] }] : [],
      parameters: parameters(op),
      ...(op.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: ref(schemas, op.body) } } } }),
      responses: { '200': success, ...errorResponses(op) },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Perpetual futures exchange REST API', version: '1.0.0', description: INTRO },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers,
    tags: ENDPOINT_TAGS.map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'from POST /auth/login' },
        operatorKey: { type: 'apiKey', in: 'header', name: 'X-Operator-Key', description: `the operator key (--operator-key); ${OPERATOR_KEY_FAILURES} wrong keys from one address lock it out for a minute` },
      },
    },
  };
}

// ── the HTML page ────────────────────────────────────────────────────────────────────────────

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Escapes, then renders `code` spans. */
const prose = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function typeOf(schema: Schema): string {
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? (schema.anyOf ? (schema.anyOf as Schema[]).map(typeOf).join(' | ') : 'any'));
  if (type === 'array' && schema.items) return `array of ${typeOf(schema.items as Schema)}`;
  if (Array.isArray(schema.enum)) return `${type}: ${schema.enum.join(', ')}`;
  if (typeof schema.title === 'string') return schema.title;
  return type;
}

function fieldRows(schema: Schema, prefix = ''): string[] {
  const target = schema.type === 'array' && schema.items ? (schema.items as Schema) : schema;
  const props = target.properties as Record<string, Schema> | undefined;
  if (props === undefined) return [];
  const required = new Set((target.required as string[] | undefined) ?? []);
  const rows: string[] = [];
  for (const [name, s] of Object.entries(props)) {
    const inner = (s.anyOf as Schema[] | undefined)?.find((x) => x.type !== 'null') ?? s;
    rows.push(`<tr><td><code>${escapeHtml(prefix + name)}</code></td><td>${escapeHtml(typeOf(s))}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${prose(String(s.description ?? inner.description ?? s['x-error'] ?? ''))}</td></tr>`);
    const nested = inner.type === 'array' ? (inner.items as Schema | undefined) : inner;
    if (nested?.properties && prefix.split('.').length < 3) rows.push(...fieldRows(nested, `${prefix}${name}${inner.type === 'array' ? '[]' : ''}.`));
  }
  return rows;
}

function table(head: string[], rows: string[]): string {
  return rows.length === 0 ? '' : `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const anchor = (op: Endpoint) => `${op.method}-${op.path.replace(/[^a-z0-9]+/gi, '-')}`;

function referencePage(document: Record<string, unknown>, endpoints: readonly Endpoint[]): string {
  const listed = endpoints.filter((o) => o.hidden !== true);
  const info = document.info as { title: string; description: string };
  const sections: string[] = [];
  const tags = (document.tags as Array<{ name: string }>).map((t) => t.name);
  const nav = tags.map((tag) => `<li>${escapeHtml(tag)}<ul>${listed.filter((o) => o.tag === tag).map((o) => `<li><a href="#${anchor(o)}"><span class="m ${o.method}">${o.method.toUpperCase()}</span> ${escapeHtml(o.path)}</a></li>`).join('')}</ul></li>`).join('');
  for (const tag of tags) {
    sections.push(`<h2>${escapeHtml(tag)}</h2>`);
    for (const op of listed.filter((o) => o.tag === tag)) {
      const params = [...(op.pathParams ?? []).map((p) => ({ ...p, where: 'path', required: true })), ...(op.query ?? []).map((p) => ({ ...p, where: 'query' }))];
      const errors = errorResponses(op) as Record<string, { content: { 'text/plain': { examples: Record<string, { value: string }> } } }>;
      const errorRows = Object.entries(errors).flatMap(([status, r]) => Object.values(r.content['text/plain'].examples).map((e) => `<tr><td>${status}</td><td><code>${escapeHtml(e.value)}</code></td></tr>`));
      sections.push(`<section id="${anchor(op)}">
<h3><span class="m ${op.method}">${op.method.toUpperCase()}</span> ${escapeHtml(op.path)} <small>${escapeHtml(op.summary)}</small></h3>
<p>${prose(op.description)}</p>
<p class="meta">${op.auth ? 'Bearer token · 200 requests/s per account' : op.operator ? 'Operator API · X-Operator-Key' : 'Public · budget per source address'}${op.signed ? ' · EIP-712 signature, nonce, expiresAt' : ''}</p>
${params.length ? `<h4>Parameters</h4>${table(['name', 'in', 'type', 'required', 'description'], params.map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.where}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${p.required ? 'yes' : ''}</td><td>${prose(p.description)}</td></tr>`))}` : ''}
${op.body ? `<h4>Body <code>${escapeHtml(String(op.body.title ?? ''))}</code></h4>${table(['field', 'type', 'required', 'description'], fieldRows(op.body))}` : ''}
<h4>Response 200 <code>${escapeHtml(op.contentType !== undefined && op.contentType !== 'application/json' ? op.contentType : op.response === NULL ? 'null' : String(op.response.title ?? typeOf(op.response)))}</code></h4>
${table(['field', 'type', 'required', 'description'], fieldRows(op.response))}
${errorRows.length ? `<h4>Errors (plain text)</h4>${table(['status', 'body'], errorRows)}` : ''}
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d1d1f}
nav{width:300px;flex:none;height:100vh;overflow:auto;position:sticky;top:0;background:#f5f5f7;padding:1em;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding-left:.6em}nav a{text-decoration:none;color:inherit}
main{padding:1em 2.5em;max-width:1000px;overflow-x:auto}
section{border-top:1px solid #ddd;padding:.5em 0 1em}
table{border-collapse:collapse;margin:.4em 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f5f5f7}
code{font:12px ui-monospace,monospace;background:#f0f0f2;padding:0 3px;border-radius:3px}
.m{display:inline-block;min-width:4.2em;font:bold 11px ui-monospace,monospace;color:#fff;border-radius:3px;padding:1px 4px;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.delete{background:#c62828}
.meta{color:#666;font-size:13px}small{color:#666;font-weight:normal}
</style></head>
<body><nav><strong>${escapeHtml(info.title)}</strong><p><a href="/">market page</a> · <a href="/openapi.json">openapi.json</a> · <a href="/asyncapi.json">asyncapi.json</a> (streaming feeds: WebSocket <code>/ws</code>, docs/feeds.md)</p><ul>${nav}</ul></nav>
<main><h1>${escapeHtml(info.title)}</h1>${info.description.split('\n\n').map((p) => `<p>${prose(p)}</p>`).join('')}
${sections.join('\n')}
</main></body></html>`;
}

/** Where the API answers: the documents' `servers`. */
export type Servers = ReadonlyArray<{ url: string; description: string }>;

/** The streaming feeds' AsyncAPI document for the servers named (ws/asyncapi): the feeds' own, served here. */
export type FeedsDocument = (servers: Servers) => Record<string, unknown>;

/**
 * GET /openapi.json, GET /docs and, given the feeds' document, GET /asyncapi.json, built once,
 * at the first request: `servers` names the address the server is bound to, known only once it
 * listens (port 0 picks one).
 */
export function docsRoutes(
  endpoints: readonly Endpoint[],
  servers: () => Servers = () => [],
  feedsDocument?: FeedsDocument,
): { openApi: DeclaredRoute; asyncApi: DeclaredRoute | undefined; docs: DeclaredRoute } {
  // The documents are data handed on whole (their declared response is any object) and the page
  // is text/html: written with JSON.stringify and the page's renderer, once, not a serializer.
  let built: { json: HttpReply; html: HttpReply } | undefined;
  const build = (): { json: HttpReply; html: HttpReply } => {
    const document = openApiDocument(endpoints, servers());
    return {
      json: { status: 200, body: JSON.stringify(document) },
      html: { status: 200, body: referencePage(document, endpoints), contentType: 'text/html; charset=utf-8' },
    };
  };
  let feeds: HttpReply | undefined;
  return {
    openApi: route(OPENAPI_JSON, () => (built ??= build()).json),
    asyncApi: feedsDocument === undefined ? undefined : route(ASYNCAPI_JSON, () => (feeds ??= { status: 200, body: JSON.stringify(feedsDocument(servers())) })),
    docs: route(DOCS, () => (built ??= build()).html),
  };
}

export const OPENAPI_JSON: Endpoint = { method: 'get', path: '/openapi.json', tag: 'Reference', summary: 'This document', description: 'OpenAPI 3.1.', auth: false, response: { type: 'object', additionalProperties: true }, errors: [], ignoresQuery: true };
export const ASYNCAPI_JSON: Endpoint = { method: 'get', path: '/asyncapi.json', tag: 'Reference', summary: 'The streaming feeds', description: 'AsyncAPI 3.0 document of the WebSocket feeds at /ws on this port (docs/feeds.md).', auth: false, response: { type: 'object', additionalProperties: true }, errors: [], ignoresQuery: true };
/** A page for browsers: a query string (a shared link's tracking parameters) is ignored. */
export const DOCS: Endpoint = { method: 'get', path: '/docs', tag: 'Reference', summary: 'API reference page', description: 'This document as a self-contained HTML page.', auth: false, response: TEXT, contentType: 'text/html', errors: [], ignoresQuery: true };
