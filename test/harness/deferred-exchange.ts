/**
 * @module test/harness/deferred-exchange
 *
 * An Exchange of the test markets (test/ledger/fixtures) whose books run the commands routed to
 * them only when the test says (`flush`), as market threads do: each command is decided while
 * the fills of the ones before it may still be on their way back. One queue for every market,
 * in routing order; `flush(n)` runs the next `n` (all by default). `order` builds a limit
 * order signed by its own account, nonces in sequence, in BTC unless told.
 */
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import type { MarketRouter } from '../../src/app/ports.ts';
import { FastOrderBook } from '../../src/engine/fast-book.ts';
import type { PlaceOrder } from '../../src/engine/types.ts';
import type { MarketIndex } from '../../src/types/ids.ts';
import type { Address } from '../../src/types/address.ts';
import { BTC, MARKETS } from '../ledger/fixtures.ts';

export const ALICE: Address = `0x${'a'.repeat(40)}`;
export const BOB: Address = `0x${'b'.repeat(40)}`;
export const CAROL: Address = `0x${'c'.repeat(40)}`;
const ZERO: Address = `0x${'0'.repeat(40)}`;

export function deferredExchange() {
  const queued: Array<() => void> = [];
  let books: FastOrderBook[] = [];
  const router: MarketRouter = {
    place: (m, cmd: PlaceOrder) => queued.push(() => books[m].place({ ...cmd })),
    cancel: (m, id, owner, time) => queued.push(() => books[m].cancel(id, owner, time)),
    cancelAll: (m, owner, time, reason) => queued.push(() => books[m].cancelAll(owner, time, reason)),
    expire: (m, time) => queued.push(() => books[m].expire(time)),
  };
  const ex = new Exchange(MARKETS, router, {}, { ledger: { faucet: true } });
  books = MARKETS.map((m) => new FastOrderBook(m.index, ex.listener(m.index), { minSizeLots: m.minSizeLots }));
  const flush = (n = Infinity) => {
    for (let i = 0; i < n && queued.length > 0; i++) queued.shift()!();
  };
  let nonce = 0;
  const order = (account: Address, side: 1 | -1, price: number, quantity: number, flags = 0, market: MarketIndex = BTC): Command => ({
    kind: CommandKind.SubmitOrder, time: 10, account, subaccountIndex: 0, market, orderType: 'limit', side, price, quantity, flags, expiresAt: 0,
    nonce: ++nonce, clientId: null, originator: ZERO, originatorFee: 0, triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null,
    signer: account, signature: '0x',
  });
  return { ex, queued, flush, order };
}
