/**
 * @module demo/market-maker
 *
 * The demo's market maker, a client of the exchange like any user (src/client: HTTP and EIP-712
 * signatures): in every market a two-sided ladder of `levels` bids and asks around the index
 * price, the first `spread` away from it and each next one `step` further, bigger the further
 * out. Every `intervalMs` it reads the index prices and requotes a market whose index moved
 * (or whose quotes were taken): one signed batch of the new ladder, then one cancel of the old
 * one — in that order, so the book is never empty between the two (the index moves at most a
 * basis point a second, so a new ladder never reaches the old one across the 10 bp spread).
 *
 * May import: ../client.
 */
import { ExchangeClient, ExchangeError, onTick, sizes, type Market } from '../client/index.ts';

export interface MakerOptions {
  levels: number;
  /** Fraction of the index between it and the best bid or ask. */
  spread: number;
  /** Fraction between two levels. */
  step: number;
  intervalMs: number;
}

const MAKER_DEFAULTS: MakerOptions = { levels: 5, spread: 0.0005, step: 0.0005, intervalMs: 1000 };

export class MarketMaker {
  private readonly quotedAt = new Map<string, string>();
  /** The order ids of the ladder resting in each market. */
  private readonly ladders = new Map<string, string[]>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly client: ExchangeClient,
    private readonly markets: readonly Market[],
    private readonly report: (line: string) => void,
    private readonly options: MakerOptions = MAKER_DEFAULTS,
  ) {}

  /** Clears what an earlier run left on the book, then quotes every `intervalMs` until `stop`. */
  async start(): Promise<void> {
    await this.client.cancelAllOrders();
    const loop = async () => {
      this.running = this.requote().catch((error) => this.report(`market maker: ${(error as Error).message}`));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.options.intervalMs);
    };
    await loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async requote(): Promise<void> {
    const [{ prices }, open] = await Promise.all([this.client.prices(), this.client.orders({ status: 'open', limit: 500 })]);
    const resting = new Map<string, number>();
    for (const o of [...open.asks, ...open.bids]) resting.set(o.symbol, (resting.get(o.symbol) ?? 0) + 1);
    await Promise.all(
      this.markets.map(async (market) => {
        const index = prices.find((p) => p.symbol === market.symbol)?.indexPrice;
        if (index === null || index === undefined) return;
        // Requote when the index moved or a taker took a level.
        if (this.quotedAt.get(market.symbol) === index && resting.get(market.symbol) === 2 * this.options.levels) return;
        await this.quote(market, Number(index));
        this.quotedAt.set(market.symbol, index);
      }),
    );
  }

  private async quote(market: Market, index: number): Promise<void> {
    const { levels, spread, step } = this.options;
    const ladder = Array.from({ length: levels }, (_, k) => [
      { symbol: market.symbol, price: onTick(market, index, -(spread + k * step), false), quantity: sizes(market, 10 * (k + 1)) },
      { symbol: market.symbol, price: onTick(market, index, spread + k * step, true), quantity: `-${sizes(market, 10 * (k + 1))}` },
    ]).flat();
    try {
      const placed = await this.client.placeOrders(ladder);
      const old = this.ladders.get(market.symbol) ?? [];
      this.ladders.set(market.symbol, placed.map((o) => o.orderId));
      // Orders of the old ladder that were filled meanwhile come back in `failed`: nothing to do.
      if (old.length > 0) await this.client.cancelOrders({ orderIds: old });
    } catch (error) {
      if (!(error instanceof ExchangeError)) throw error;
      this.report(`market maker: ${market.symbol} quotes refused: ${error.status} ${error.message}`);
    }
  }
}
