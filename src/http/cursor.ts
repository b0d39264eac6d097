/**
 * @module http/cursor
 *
 * Paging the history listings (GET /account/fills, /account/orders, /account/transfer/history,
 * /trades/{symbol}) without gaps or repeats. A page that is full (`limit` entries) answers
 * `X-Next-Cursor`; the client sends it back as `cursor`, with the same other parameters, and
 * gets the entries that follow (older ones, the listings being newest first). Why not `to` =
 * the oldest time received: many entries share a millisecond (one order filling against a
 * hundred makers), so a time cannot say where a page ended — a page boundary inside a
 * millisecond skipped or repeated entries, or never got past it. The cursor is the storage key
 * of the page's last entry after the listing's prefix, written as dot-separated integers; it is
 * opaque to the client.
 * May import: http/ (errors, query, uws types, endpoint types).
 */
import { failure, GatewayCode } from './errors.ts';
import { strictInteger, type Query, type QueryParam } from './query.ts';
import type { DocumentedError } from './endpoint.ts';
import type { HttpReply } from './uws.ts';

const NEXT_CURSOR_HEADER = 'x-next-cursor';

export const CURSOR_PARAM: QueryParam = {
  name: 'cursor',
  required: false,
  schema: { type: 'string', maxLength: 100 },
  description: 'the `X-Next-Cursor` header of the previous page: the entries after it, same other parameters',
};

export const BAD_CURSOR: DocumentedError = [400, 'cursor must be the X-Next-Cursor header of a previous page of this listing, got <value>'];

/** The `cursor` parameter as `parts` integers, absent, or its 400. */
export function cursorParam(query: Query, parts: number): number[] | undefined | HttpReply {
  const text = query.get('cursor');
  if (text === undefined) return undefined;
  const values = text.split('.').map(strictInteger);
  if (values.length !== parts || values.some((v) => v === undefined || v < 0)) return failure(GatewayCode.InvalidField, BAD_CURSOR[1].replace('<value>', text));
  return values as number[];
}

/** `reply` with `X-Next-Cursor` when the page is full (more may follow). */
export function withNextCursor(reply: HttpReply, full: boolean, last: readonly number[] | undefined): HttpReply {
  if (!full || last === undefined) return reply;
  return { ...reply, headers: { ...reply.headers, [NEXT_CURSOR_HEADER]: last.join('.') } };
}
