/**
 * @module cli/commands
 *
 * Every command of `perp` (the command line, ./main): its name, arguments, options, help text
 * and what it does through the client (src/client). Trading commands use the key file and log in
 * when the saved token is missing or about to expire; operator commands send the operator key;
 * `journal` hands its arguments to the journal tool (src/journal/cli.ts).
 *
 * A market order is a limit order at the best opposite price moved by `--slippage` (default
 * 1 %), immediate-or-cancel: it fills against the book at the book's prices, up to that limit,
 * and what is left is cancelled.
 *
 * May import: ../client, ./output, ./usage, ./wallet-files, transport/source-bundle, transport/spawn-worker, node:child_process, node:path, node:url.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { ExchangeClient, ExchangeError, accountChannel, onTick, type FeedMessage, type Market, type Order } from '../client/index.ts';
import { fields, table } from './output.ts';
import { decimal, integer, UsageError } from './usage.ts';
import { createKey, readKey, readSession, saveSession } from './wallet-files.ts';
import { runnableModule } from '../transport/source-bundle.ts';
import { siblingModule } from '../transport/spawn-worker.ts';

export interface Option {
  type: 'string' | 'boolean';
  description: string;
}

export interface Context {
  url: string;
  keyFile: string;
  subaccountIndex: number;
  json: boolean;
  operatorKey: string;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** Prints `human` for people, `data` as JSON with --json. */
  show(data: unknown, human: () => string): void;
  /** Writes one line of output as it is (a feed message). */
  print(line: string): void;
}

export interface Command {
  name: string;
  args: string;
  summary: string;
  options?: Record<string, Option>;
  /** Takes its arguments raw (`journal`). */
  raw?: boolean;
  /** Done: nothing, or the exit status a command ends with by itself (the journal tool's). */
  run(ctx: Context): Promise<void | number> | void | number;
}

/** The feed's own messages, not shown by `feed follow`: a private channel's `live` says it caught up (each reconnect sends one). */
const PROTOCOL_MESSAGES: ReadonlySet<string> = new Set(['heartbeat', 'subscribed', 'login', 'live']);

/** A client without a wallet (market data) and with the operator key. */
const publicClient = (ctx: Context) => new ExchangeClient({ url: ctx.url, operatorKey: ctx.operatorKey });

/** A client of the key file's wallet, logged in (the saved token while it has a minute left). */
async function walletClient(ctx: Context): Promise<ExchangeClient> {
  const { account } = readKey(ctx.keyFile);
  const address = account.address.toLowerCase();
  const client = new ExchangeClient({ url: ctx.url, wallet: account, subaccountIndex: ctx.subaccountIndex, session: readSession(ctx.keyFile, ctx.url, address) });
  const before = client.session?.token;
  await client.token();
  if (client.session !== undefined && client.session.token !== before) saveSession(ctx.keyFile, ctx.url, address, client.session);
  return client;
}

const arg = (ctx: Context, index: number, what: string): string => {
  const value = ctx.positionals[index];
  if (value === undefined) throw new UsageError(`missing ${what}`);
  return value;
};

const noExtra = (ctx: Context, count: number): void => {
  if (ctx.positionals.length > count) throw new UsageError(`unexpected argument ${ctx.positionals[count]}`);
};

const ORDER_COLUMNS = [
  ['orderId', (o: Order) => o.orderId],
  ['symbol', (o: Order) => o.symbol],
  ['side', (o: Order) => (o.quantity.startsWith('-') ? 'sell' : 'buy')],
  ['quantity', (o: Order) => o.quantity.replace(/^-/, '')],
  ['price', (o: Order) => o.price],
  ['filled', (o: Order) => o.settled],
  ['status', (o: Order) => o.status],
  ['type', (o: Order) => o.orderType],
] as const;

const time = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);

async function findMarket(client: ExchangeClient, symbol: string): Promise<Market> {
  const { markets } = await client.config();
  const market = markets.find((m) => m.symbol === symbol.toUpperCase() || m.base === symbol.toUpperCase());
  if (market === undefined) throw new UsageError(`unknown market ${symbol}: one of ${markets.map((m) => m.symbol).join(', ')}`);
  return market;
}

export const COMMANDS: Command[] = [
  {
    name: 'key create',
    args: '',
    summary: 'create a wallet key in the key file (mode 0600) and print its address',
    options: { force: { type: 'boolean', description: 'replace an existing key file (its key is lost)' }, 'show-private-key': { type: 'boolean', description: 'also print the private key' } },
    run(ctx) {
      noExtra(ctx, 0);
      const account = createKey(ctx.keyFile, ctx.values.force === true);
      const key = ctx.values['show-private-key'] === true ? readKey(ctx.keyFile).key : undefined;
      ctx.show({ address: account.address, keyFile: ctx.keyFile, ...(key ? { privateKey: key } : {}) }, () => fields([['address', account.address], ['key file', ctx.keyFile], ...(key ? [['private key', key] as const] : [])]));
    },
  },
  {
    name: 'key show',
    args: '',
    summary: "print the key file's address",
    options: { 'show-private-key': { type: 'boolean', description: 'also print the private key' } },
    run(ctx) {
      noExtra(ctx, 0);
      const { account, key } = readKey(ctx.keyFile);
      const shown = ctx.values['show-private-key'] === true ? key : undefined;
      ctx.show({ address: account.address, keyFile: ctx.keyFile, ...(shown ? { privateKey: shown } : {}) }, () => fields([['address', account.address], ['key file', ctx.keyFile], ...(shown ? [['private key', shown] as const] : [])]));
    },
  },
  {
    name: 'login',
    args: '',
    summary: 'sign in with the key (Sign-In with Ethereum) and keep the token for the next commands',
    async run(ctx) {
      noExtra(ctx, 0);
      const { account } = readKey(ctx.keyFile);
      const client = new ExchangeClient({ url: ctx.url, wallet: account });
      const session = await client.login();
      saveSession(ctx.keyFile, ctx.url, client.address, session);
      ctx.show({ address: client.address, expiresAt: session.expiresAt }, () => `logged in as ${client.address} until ${new Date(session.expiresAt).toISOString()}`);
    },
  },
  {
    name: 'faucet',
    args: '',
    summary: 'testnet: take 10,000 USD of test collateral (5 times per UTC day)',
    async run(ctx) {
      noExtra(ctx, 0);
      const client = await walletClient(ctx);
      await client.faucet();
      const balance = await client.balance();
      ctx.show(balance, () => `credited: collateral ${balance.collateral} USD, free ${balance.freeCollateralCross} USD`);
    },
  },
  {
    name: 'order place',
    args: 'SYMBOL buy|sell QUANTITY',
    summary: 'sign and place an order: a limit order with --price, else a market order (immediate-or-cancel up to --slippage from the best price)',
    options: {
      price: { type: 'string', description: 'limit price; without it, a market order' },
      slippage: { type: 'string', description: 'market order: how far past the best price to fill, as a fraction (default 0.01)' },
      ioc: { type: 'boolean', description: 'immediate-or-cancel' },
      'post-only': { type: 'boolean', description: 'only rest on the book, never take' },
      'reduce-only': { type: 'boolean', description: 'only reduce the position' },
      'client-id': { type: 'string', description: 'your id for the order (idempotent retries)' },
    },
    async run(ctx) {
      const [symbol, side, size] = [arg(ctx, 0, 'SYMBOL'), arg(ctx, 1, 'side (buy or sell)'), arg(ctx, 2, 'QUANTITY')];
      noExtra(ctx, 3);
      if (side !== 'buy' && side !== 'sell') throw new UsageError(`side must be buy or sell, got ${side}`);
      const quantity = decimal('QUANTITY', size);
      const limit = ctx.values.price === undefined ? undefined : decimal('--price', ctx.values.price as string);
      const slippage = Number(decimal('--slippage', (ctx.values.slippage as string | undefined) ?? '0.01'));
      const client = await walletClient(ctx);
      const market = await findMarket(client, symbol);
      let price = limit;
      if (price === undefined) {
        const book = await client.book(market.symbol, { depth: 1 });
        const best = side === 'buy' ? book.asks[0] : book.bids[0];
        if (best === undefined) throw new UsageError(`no ${side === 'buy' ? 'asks' : 'bids'} in ${market.symbol} to take: pass --price for a limit order`);
        price = onTick(market, Number(best.price), side === 'buy' ? slippage : -slippage, side === 'buy');
      }
      const order = await client.placeOrder({
        symbol: market.symbol,
        price,
        quantity: side === 'sell' ? `-${quantity}` : quantity,
        ioc: limit === undefined || ctx.values.ioc === true,
        postOnly: ctx.values['post-only'] === true,
        reduceOnly: ctx.values['reduce-only'] === true,
        clientId: (ctx.values['client-id'] as string | undefined) ?? null,
      });
      ctx.show(order, () => table([order], ORDER_COLUMNS));
    },
  },
  {
    name: 'order list',
    args: '',
    summary: 'your orders, newest first',
    options: { status: { type: 'string', description: 'open (default), active, filled or closed' }, symbol: { type: 'string', description: 'one market' } },
    async run(ctx) {
      noExtra(ctx, 0);
      const client = await walletClient(ctx);
      const list = await client.orders({ status: (ctx.values.status as string | undefined) ?? 'open', symbol: ctx.values.symbol as string | undefined });
      const orders = [...list.asks, ...list.bids].sort((a, b) => b.createdAt - a.createdAt);
      ctx.show(list, () => table(orders, ORDER_COLUMNS));
    },
  },
  {
    name: 'order cancel',
    args: '[ORDER_ID...]',
    summary: 'cancel orders by id, or every open order with --all',
    options: { all: { type: 'boolean', description: 'every open order (of --symbol only, when given)' }, symbol: { type: 'string', description: 'with --all: one market' } },
    async run(ctx) {
      if ((ctx.positionals.length === 0) === (ctx.values.all !== true)) throw new UsageError('give ORDER_ID... or --all (not both)');
      for (const id of ctx.positionals) if (!/^0x[0-9a-fA-F]{16}$/.test(id)) throw new UsageError(`an order id is 0x and 16 hex digits, got ${id}`);
      const client = await walletClient(ctx);
      const result = ctx.values.all === true ? await client.cancelAllOrders({ symbol: ctx.values.symbol as string | undefined }) : await client.cancelOrders({ orderIds: ctx.positionals });
      ctx.show(result, () => [table(result.cancelled, ORDER_COLUMNS), ...result.failed.map((f) => `not cancelled: ${f.orderId || f.clientId}: ${f.reason}`)].join('\n'));
    },
  },
  {
    name: 'book',
    args: 'SYMBOL',
    summary: 'the order book: asks above, bids below',
    options: { depth: { type: 'string', description: 'levels per side (default 10)' } },
    async run(ctx) {
      const symbol = arg(ctx, 0, 'SYMBOL');
      noExtra(ctx, 1);
      const depth = integer('--depth', ctx.values.depth as string | undefined, 10);
      const book = await publicClient(ctx).book(symbol, { depth });
      const rows = [...[...book.asks].reverse().map((l) => ({ side: 'ask', ...l })), ...book.bids.map((l) => ({ side: 'bid', ...l }))];
      ctx.show(book, () => table(rows, [['side', (r) => r.side], ['price', (r) => r.price], ['quantity', (r) => r.quantity]]));
    },
  },
  {
    name: 'trades',
    args: 'SYMBOL',
    summary: "the market's latest trades, newest first",
    options: { limit: { type: 'string', description: 'how many (default 20)' } },
    async run(ctx) {
      const symbol = arg(ctx, 0, 'SYMBOL');
      noExtra(ctx, 1);
      const trades = await publicClient(ctx).trades(symbol, { limit: integer('--limit', ctx.values.limit as string | undefined, 20) });
      ctx.show(trades, () => table(trades, [['time (UTC)', (t) => time(t.time)], ['side', (t) => t.side], ['price', (t) => t.price], ['quantity', (t) => t.quantity]]));
    },
  },
  {
    name: 'markets',
    args: '',
    summary: 'markets with their mark, index and last prices',
    async run(ctx) {
      noExtra(ctx, 0);
      const client = publicClient(ctx);
      const [{ markets }, { prices }] = await Promise.all([client.markets(), client.prices()]);
      const rows = markets.map((m) => ({ m, p: prices.find((p) => p.symbol === m.symbol) }));
      ctx.show({ markets, prices }, () => table(rows, [['symbol', (r) => r.m.symbol], ['tick', (r) => r.m.tickSize], ['min size', (r) => r.m.minSize], ['mark', (r) => r.p?.markPrice], ['index', (r) => r.p?.indexPrice], ['last', (r) => r.p?.lastPrice]]));
    },
  },
  {
    name: 'positions',
    args: '',
    summary: 'your open positions',
    async run(ctx) {
      noExtra(ctx, 0);
      const { positions } = await (await walletClient(ctx)).positions();
      ctx.show(positions, () =>
        table(positions, [
          ['symbol', (p) => p.symbol],
          ['quantity', (p) => p.quantity],
          ['entry', (p) => (Number(p.quantity) === 0 ? '' : (Number(p.basis) / Number(p.quantity)).toPrecision(8))],
          ['mark', (p) => p.markPrice],
          ['unrealized PnL', (p) => p.unrealizedPnl],
          ['funding', (p) => p.funding],
          ['margin', (p) => (p.isolated ? `isolated ${p.margin}` : 'cross')],
        ]),
      );
    },
  },
  {
    name: 'stats',
    args: '',
    summary: 'your account: value, collateral, margin, PnL',
    async run(ctx) {
      noExtra(ctx, 0);
      const stats = await (await walletClient(ctx)).stats();
      ctx.show(stats, () => fields(Object.entries(stats)));
    },
  },
  {
    name: 'feed follow',
    args: 'CHANNEL...',
    summary: 'print feed messages as they arrive (book.BTC, trades.ETH-USD-PERP, candles.SOL.1m, prices.BTC, summary.BTC, or account for your own); Ctrl-C stops',
    options: { since: { type: 'string', description: 'account channel: resume after this event number (0 = all)' }, count: { type: 'string', description: 'stop after this many messages' } },
    async run(ctx) {
      if (ctx.positionals.length === 0) throw new UsageError('missing CHANNEL');
      const since = ctx.values.since === undefined ? undefined : integer('--since', ctx.values.since as string);
      const count = ctx.values.count === undefined ? Infinity : integer('--count', ctx.values.count as string);
      const wantsAccount = ctx.positionals.some((c) => c === 'account' || c.startsWith('account.'));
      const client = wantsAccount ? await walletClient(ctx) : publicClient(ctx);
      const channels = ctx.positionals.map((c) => (c === 'account' ? accountChannel(client.address, ctx.subaccountIndex) : c));
      const feed = client.feed();
      let seen = 0;
      let opened = false;
      // The client's reconnect timers keep no process alive (a library's must not): following does.
      const following = setInterval(() => {}, 1 << 30);
      let stop = (): void => {};
      await new Promise<void>((resolve, reject) => {
        stop = () => resolve();
        process.once('SIGINT', stop);
        feed.onState((state) => {
          if (state === 'open') opened = true;
          // Never reached: the URL is wrong or the exchange is down (exit 1). A drop later is reconnected.
          else if (!opened) reject(new ExchangeError(0, `cannot reach the exchange's feed at ${ctx.url}`));
        });
        feed.onMessage((m: FeedMessage) => {
          if (seen >= count || PROTOCOL_MESSAGES.has(m.type)) return; // done, or the protocol's own
          if (m.type === 'error') {
            reject(new UsageError(`${m.channel ?? 'feed'}: ${String(m.message)}`));
            return;
          }
          const { channel, type, ...rest } = m;
          ctx.print(ctx.json ? JSON.stringify(m) : `${channel ?? '-'} ${type} ${JSON.stringify(rest)}`);
          if (++seen >= count) resolve();
        });
        feed.subscribe(channels, since);
      }).finally(() => {
        process.off('SIGINT', stop);
        clearInterval(following);
        feed.close();
      });
    },
  },
  {
    name: 'deposit',
    args: 'ACCOUNT AMOUNT',
    summary: 'operator: credit a deposit of AMOUNT USD to ACCOUNT (--subaccount)',
    async run(ctx) {
      const [account, amount] = [arg(ctx, 0, 'ACCOUNT'), decimal('AMOUNT', ctx.positionals[1])];
      noExtra(ctx, 2);
      if (!/^0x[0-9a-fA-F]{40}$/.test(account)) throw new UsageError(`ACCOUNT must be a 0x address, got ${account}`);
      await publicClient(ctx).deposit({ account, subaccountIndex: ctx.subaccountIndex, amount });
      ctx.show(null, () => `deposited ${amount} USD to ${account.toLowerCase()} subaccount ${ctx.subaccountIndex}`);
    },
  },
  {
    name: 'index-price',
    args: 'SYMBOL [PRICE]',
    summary: "operator: set a market's index price (on testnet it holds the market), or --release it to the built-in feed",
    options: { release: { type: 'boolean', description: 'hand the market back to the built-in feed' } },
    async run(ctx) {
      const symbol = arg(ctx, 0, 'SYMBOL');
      const client = publicClient(ctx);
      if (ctx.values.release === true) {
        noExtra(ctx, 1);
        await client.releaseIndexPrice({ symbol });
        ctx.show(null, () => `${symbol}: index price released to the built-in feed`);
        return;
      }
      const price = decimal('PRICE', ctx.positionals[1]);
      noExtra(ctx, 2);
      await client.setIndexPrice({ symbol, price });
      ctx.show(null, () => `${symbol}: index price ${price}`);
    },
  },
  {
    name: 'snapshot',
    args: '',
    summary: 'operator: take a snapshot now',
    async run(ctx) {
      noExtra(ctx, 0);
      const taken = await publicClient(ctx).snapshot();
      ctx.show(taken, () => `snapshot taken at journal sequence ${taken.seq}`);
    },
  },
  {
    name: 'journal',
    args: 'inspect|verify|replay|copy …',
    summary: "operator: the journal tool (npm run journal) on a data directory's journal; replay = verify --replay with the exchange's cores",
    raw: true,
    run(ctx) {
      const [sub = '', ...rest] = ctx.positionals;
      // The tool and the replay's cores as this build has them: compiled from dist/, or bundles of
      // the sources (made once, transport/source-bundle) — not the sources through tsx's loader,
      // which cost the tool's process a second of CPU to start.
      const module = (name: string) => fileURLToPath(runnableModule(siblingModule(name, import.meta.url)));
      // An operator's own replay target written in TypeScript (`verify --replay mine.ts`) runs from its bundle too.
      const given = rest.map((arg, i) => (rest[i - 1] === '--replay' && arg.endsWith('.ts') ? fileURLToPath(runnableModule(pathToFileURL(resolve(arg)))) : arg));
      const args = sub === 'replay' ? ['verify', ...given, '--replay', module('../sequencer/replay-target.ts')] : [sub, ...given];
      // The tool writes to this process's own output as it goes (a replay prints its progress).
      const result = spawnSync(process.execPath, [module('../journal/cli.ts'), ...args], { stdio: 'inherit' });
      return result.status ?? 1;
    },
  },
];
