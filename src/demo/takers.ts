/**
 * @module demo/takers
 *
 * The demo's takers: wallets that, one at a time every `intervalMs` (±50 %), pick a market and a
 * side at random and send a signed immediate-or-cancel order through the client at the best
 * opposite price plus 0.5 %, so it trades against the market maker at the book's prices. A taker
 * whose position in the market is worth more than `maxNotional` USD trades it back down, so the
 * demo runs for hours without positions (its own or the maker's) growing without bound.
 *
 * May import: ../client.
 */
import { ExchangeClient, ExchangeError, onTick, sizes, type Market } from '../client/index.ts';

export class Takers {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private turn = 0;

  constructor(
    private readonly clients: readonly ExchangeClient[],
    private readonly markets: readonly Market[],
    private readonly report: (line: string) => void,
    private readonly intervalMs = 700,
    private readonly maxNotional = 2000,
  ) {}

  start(): void {
    const loop = async () => {
      this.running = this.trade(this.clients[this.turn++ % this.clients.length]).catch((error) => this.report(`taker: ${(error as Error).message}`));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.intervalMs * (0.5 + Math.random()));
    };
    this.timer = setTimeout(loop, this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async trade(client: ExchangeClient): Promise<void> {
    const market = this.markets[Math.floor(Math.random() * this.markets.length)];
    const [book, { positions }] = await Promise.all([client.book(market.symbol, { depth: 1 }), client.positions({ symbol: market.symbol })]);
    const held = Number(positions[0]?.quantity ?? '0');
    const notional = Math.abs(held) * Number(positions[0]?.markPrice ?? '0');
    const buy = notional > this.maxNotional ? held < 0 : Math.random() < 0.5;
    const best = buy ? book.asks[0] : book.bids[0];
    if (best === undefined) return; // the maker is requoting: next turn
    const quantity = sizes(market, 1 + Math.floor(Math.random() * 10));
    try {
      await client.placeOrder({ symbol: market.symbol, price: onTick(market, Number(best.price), buy ? 0.005 : -0.005, buy), quantity: buy ? quantity : `-${quantity}`, ioc: true });
    } catch (error) {
      if (!(error instanceof ExchangeError)) throw error;
      this.report(`taker ${client.address}: ${market.symbol} ${error.status} ${error.message}`);
    }
  }
}
