/**
 * The client cannot drift from the API: its route table (src/client/routes.ts) is compared with
 * the API document a running exchange serves (GET /openapi.json, read by the client over HTTP
 * from the in-process exchange's listener), both ways. A route added to the server without the
 * client, a path or method renamed, a route moved behind another security scheme or answering
 * another schema fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExchangeClient, ROUTES } from '../../src/client/index.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

const ex = await (await startInProcessExchange()).listen();
const client = new ExchangeClient({ url: ex.url });
const document = (await client.openApi()) as { paths: Record<string, Record<string, OpenApiOperation>> };

interface OpenApiOperation {
  security: Array<Record<string, unknown>>;
  responses: { '200': { content: Record<string, { schema: { $ref?: string; title?: string } }> } };
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const accessOf = (op: OpenApiOperation) => (op.security.length === 0 ? 'public' : 'bearer' in op.security[0] ? 'token' : 'operator');

test('every JSON route of GET /openapi.json has a client method, and every client route is in the document', () => {
  const served = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => 'application/json' in op.responses['200'].content) // pages (text/html) are for browsers
      .map(([method]) => key(method, path)),
  );
  const ours = Object.values(ROUTES).map((r) => key(r.method, r.path));
  assert.deepEqual([...ours].sort(), [...served].sort());
});

test('each client route has the document’s security and response schema, and a method of that name', () => {
  for (const [name, route] of Object.entries(ROUTES)) {
    const op = document.paths[route.path][route.method];
    assert.equal(accessOf(op), route.access, `${name}: security`);
    const schema = op.responses['200'].content['application/json'].schema;
    const title = schema.$ref?.split('/').pop() ?? schema.title;
    assert.equal(title, 'title' in route.response ? route.response.title : undefined, `${name}: response schema`);
    assert.equal(typeof (client as unknown as Record<string, unknown>)[name], 'function', `ExchangeClient.${name}`);
  }
});
