/**
 * @module http
 *
 * The REST gateway: every route of the spec on uWebSockets.js, from bytes to a command or a
 * read and back. It parses, validates against one JSON schema per route, authenticates (JWT,
 * signatures through the pool), applies the rate limits, and maps every refusal to the spec's
 * status and text in one table (errors.ts). It decides nothing about money: writes go
 * to the sequencer through ports (ports.ts) the gateway owns and the sequencer satisfies by shape,
 * reads go to the depth mirrors and history.
 *
 * Owns: the one uWebSockets.js adapter (uws.ts and its uws-* parts, over the build uws-native.ts loads), the route table (gateway.ts) and routes
 * (routes/), request schemas and their conversion to integer units (requests/, validation.ts,
 * schemas.ts), fast-json-stringify serializers and the OpenAPI document (routes/openapi.ts),
 * the account guard and GCRA limits (auth-guard.ts, rate-limit.ts), the client address behind
 * trusted proxies (client-address.ts), the order view (order-view.ts), CORS (cors.ts),
 * compressed bodies (compression.ts), the probes and metrics routes (routes/operations.ts).
 * May import: types/ (orders, ids types), auth/, config/, history/, numeric/decimal, engine/ (types,
 * codes), ledger/ (codes, ledger types, margin, position types, units), app/ (commands, codes,
 * faucet-day, order-registry), conditional/codes, @btc-vision/uwebsockets.js (types), ajv,
 * fast-json-stringify, negotiator, node:zlib (compression.ts), node:crypto, node:fs, node:url,
 * esbuild (routes/web), node:module (uws-native.ts), pino (types). From the application and the
 * ledger: command kinds, result codes, the order vocabulary, the registry's read model and
 * read-only queries. What it calls of the sequencer it declares itself (http/ports). At run time
 * uws-native.ts loads a uWebSockets.js build through `createRequire`: @btc-vision/uwebsockets.js
 * or @trufflesuite/uws-js-unofficial (the uws-* adapter only).
 *
 * Invariants: every malformed input is a 4xx with a clear text, never a 5xx; a 500 means a
 * broken invariant and is logged; a reply for a write goes out only after the write is durable.
 * Limits: HTTP/1.1 only; the public per-address budget trusts `X-Forwarded-For` only from
 * `TRUSTED_PROXIES`.
 */
export {};
