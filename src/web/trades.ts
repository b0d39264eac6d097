/**
 * @module web/trades
 *
 * The recent trades of one market. The `trades.<symbol>` feed sends no snapshot, so the list
 * starts from GET /trades (newest first) and the feed's trades go in front of it. Trades the
 * feed sends while GET /trades is on its way are held, then added unless GET /trades already
 * had them: history may be written before or after the feed sends a trade, and REST items carry
 * no sequence number, so "had it" means a REST trade with the same time, price, quantity and
 * side, each REST trade matching once.
 * May import: nothing. Browser code.
 */

export interface Trade {
  price: string;
  quantity: string;
  /** The aggressor's side. */
  side: 'buy' | 'sell';
  /** Seconds. */
  time: number;
}

const sameTrade = (a: Trade, b: Trade) => a.time === b.time && a.price === b.price && a.quantity === b.quantity && a.side === b.side;

export class RecentTrades {
  private list: Trade[] = [];
  /** Feed trades that arrived since `reset`, while GET /trades is on its way; null once loaded. */
  private held: Trade[] | null = [];

  constructor(private readonly keep: number) {}

  /** Called before GET /trades is sent: the feed's trades are held until `load`. */
  reset(): void {
    this.list = [];
    this.held = [];
  }

  /** GET /trades's answer, newest first. */
  load(rest: readonly Trade[]): void {
    const held = this.held ?? [];
    this.held = null;
    const unmatched = rest.slice();
    const fresh = held.filter((trade) => {
      const i = unmatched.findIndex((r) => sameTrade(r, trade));
      if (i >= 0) unmatched.splice(i, 1);
      return i < 0;
    });
    this.list = rest.slice(0, this.keep);
    this.add(fresh);
  }

  /** A feed message's trades, oldest first. */
  add(trades: readonly Trade[]): void {
    if (this.held !== null) {
      this.held.push(...trades);
      return;
    }
    this.list = [...trades].reverse().concat(this.list).slice(0, this.keep);
  }

  /** Newest first. */
  get items(): readonly Trade[] {
    return this.list;
  }
}
