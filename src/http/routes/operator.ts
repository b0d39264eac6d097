/**
 * The operator API (what a chain bridge and the exchange's operator call), behind the
 * `X-Operator-Key` header (constant-time, source addresses that guess are locked out:
 * http/operator-key.ts): credit deposits, debit withdrawals, feed index prices, and read the
 * state hash. On testnet an operator-set index price holds its market: the built-in feed
 * (sequencer/testnet-feed.ts) leaves it alone until POST /operator/index-price/release hands it
 * back, and GET /price shows `indexHeld`. The testnet faucet is a route of its own (faucet.ts).
 */
import { COLLATERAL_SCALE, findMarket, priceToTicks, type MarketSpec } from '../../config/market.ts';
import { parseDecimal } from '../../numeric/decimal.ts';
import { CommandKind, type Command } from '../../app/commands.ts';
import { codeFailure, failure, GatewayCode, refuse, type DocumentedError } from '../errors.ts';
import { Field } from '../validation.ts';
import { operatorKeyGuard } from '../operator-key.ts';
import { isOverloaded, type Clock, type Outcome } from '../ports.ts';
import type { HttpReply } from '../uws.ts';
import { route, type DeclaredRoute, type Endpoint, type Handler } from '../endpoint.ts';
import { ACCOUNT_NOT_FOUND, BAD_FIELDS, INSUFFICIENT_BALANCE, INVALID_SUBACCOUNT, OPERATOR_KEY, OVERLOADED, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import type { MarketIndex } from '../../types/ids.ts';
import { lowercaseAddress } from '../../auth/address.ts';

export interface OperatorPort {
  submit(command: Command): Promise<Outcome>;
  /** Takes a snapshot now; resolves with its journal sequence number once saved. */
  snapshot(): Promise<number>;
  /** The hash of the whole state (the sequencer's machine and every book), and the first broken invariant or null. */
  stateHash(): Promise<{ exchange: string; books: { market: MarketIndex; hash: string }[]; lastSeq: number; problem: string | null; money: Record<string, string> }>;
  /** The testnet's built-in feed, whose markets an operator-set price holds; absent on mainnet. */
  indexFeed?: { hold(market: MarketIndex, ticks: number): void; release(market: MarketIndex): void };
}

export interface OperatorRouteOptions {
  markets: readonly MarketSpec[];
  operator: OperatorPort;
  operatorKey: string;
  clock: Clock;
}

const AMOUNT = { ...Field.decimal, description: 'USD amount, at most 6 decimals, positive' };
const MONEY_SCHEMA = {
  type: 'object',
  properties: { account: Field.address, subaccountIndex: Field.subaccountIndex, amount: AMOUNT },
  required: ['account', 'subaccountIndex', 'amount'],
  additionalProperties: false,
} as const;
type MoneyBody = { account: string; subaccountIndex: number; amount: string };
const PRICE_SCHEMA = {
  type: 'object',
  properties: { symbol: { type: 'string', maxLength: 40 }, price: Field.decimal },
  required: ['symbol', 'price'],
  additionalProperties: false,
} as const;
type PriceBody = { symbol: string; price: string };
const RELEASE_SCHEMA = {
  type: 'object',
  properties: { symbol: { type: 'string', maxLength: 40 } },
  required: ['symbol'],
  additionalProperties: false,
} as const;
type ReleaseBody = { symbol: string };

const AMOUNT_TEXT = 'amount must be a positive decimal string with at most 6 decimals';
const OFF_TICK: DocumentedError = [400, 'price must be a positive multiple of the tick size <tickSize>'];
const NO_FEED = 'There is no built-in price feed to hand the market back to (mainnet): index prices come from this API only';

function amountOf(text: string): bigint | HttpReply {
  const parsed = parseDecimal(text, COLLATERAL_SCALE);
  if (!parsed.ok || parsed.value <= 0n) return failure(GatewayCode.InvalidField, AMOUNT_TEXT);
  return parsed.value;
}

const isReply = (v: unknown): v is HttpReply => typeof v === 'object' && v !== null && 'status' in v;
const NULL_BODY: HttpReply = { status: 200, body: 'null' };

/** Submits a command: `null` once it is durable, or the refusal (`refused` may explain one itself). */
export async function runCommand(operator: Pick<OperatorPort, 'submit'>, command: Command, refused: (code: number) => HttpReply | undefined = () => undefined): Promise<HttpReply> {
  try {
    const { result } = await operator.submit(command);
    return result.code === 0 ? NULL_BODY : (refused(result.code) ?? codeFailure(result));
  } catch (error) {
    if (isOverloaded(error)) return failure(GatewayCode.Overloaded, error.reason);
    throw error;
  }
}

export function operatorRoutes(options: OperatorRouteOptions): { deposit: DeclaredRoute; withdraw: DeclaredRoute; indexPrice: DeclaredRoute; indexPriceRelease: DeclaredRoute; snapshot: DeclaredRoute; stateHash: DeclaredRoute } {
  const { markets, operator, clock } = options;
  // The key is checked before anything of the request is read, its query too.
  const keyed = operatorKeyGuard(options.operatorKey, clock);
  const run = (command: Command) => runCommand(operator, command);

  const money = (kind: typeof CommandKind.Deposit | typeof CommandKind.Withdraw): Handler<MoneyBody, undefined> => async (_req, _query, _serialize, _found, body) => {
    const amount = amountOf(body.amount);
    if (isReply(amount)) return amount;
    return run({ kind, time: clock(), account: lowercaseAddress(body.account), subaccountIndex: body.subaccountIndex, amount });
  };

  return {
    deposit: route(DEPOSIT, money(CommandKind.Deposit), keyed),
    withdraw: route(WITHDRAW, money(CommandKind.Withdraw), keyed),
    indexPrice: route(
      INDEX_PRICE,
      async (_req, _query, _serialize, _found, body) => {
        const market = findMarket(markets, body.symbol);
        if (market === undefined) return failure(GatewayCode.SymbolNotFound);
        const ticks = priceToTicks(market, body.price);
        if (typeof ticks !== 'number') return refuse(OFF_TICK, market.tickSize);
        // Held before the command is queued: no feed step queued after it can overwrite it.
        operator.indexFeed?.hold(market.index, ticks);
        return run({ kind: CommandKind.IndexPrice, time: clock(), market: market.index, price: ticks });
      },
      keyed,
    ),
    indexPriceRelease: route(
      INDEX_PRICE_RELEASE,
      async (_req, _query, _serialize, _found, body) => {
        const market = findMarket(markets, body.symbol);
        if (market === undefined) return failure(GatewayCode.SymbolNotFound);
        if (operator.indexFeed === undefined) return failure(GatewayCode.InvalidField, NO_FEED);
        operator.indexFeed.release(market.index);
        return NULL_BODY;
      },
      keyed,
    ),
    snapshot: route(SNAPSHOT, async (_req, _query, serialize) => ({ status: 200, body: serialize({ seq: await operator.snapshot() }) }), keyed),
    stateHash: route(STATE_HASH, async (_req, _query, serialize) => ({ status: 200, body: serialize(await operator.stateHash()) }), keyed),
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const DEPOSIT: Endpoint<MoneyBody> = {
  method: 'post', path: '/operator/deposit', tag: 'Operator', summary: 'Credit a deposit', description: 'What the chain bridge calls when collateral arrived: credits the subaccount (created if new). `null` once durable.',
  auth: false, operator: true, body: MONEY_SCHEMA, response: S.NULL_SCHEMA, errors: [...OPERATOR_KEY, ...BAD_FIELDS, [400, AMOUNT_TEXT], INVALID_SUBACCOUNT, OVERLOADED],
};

export const WITHDRAW: Endpoint<MoneyBody> = {
  method: 'post', path: '/operator/withdraw', tag: 'Operator', summary: 'Debit a withdrawal', description: 'Debits the subaccount, at most what it may withdraw (collateral not backing positions or orders). `null` once durable.',
  auth: false, operator: true, body: MONEY_SCHEMA, response: S.NULL_SCHEMA, errors: [...OPERATOR_KEY, ...BAD_FIELDS, [400, AMOUNT_TEXT], INSUFFICIENT_BALANCE, ACCOUNT_NOT_FOUND, OVERLOADED],
};

export const INDEX_PRICE: Endpoint<PriceBody> = {
  method: 'post', path: '/operator/index-price', tag: 'Operator', summary: 'Set an index price', description: 'The index price of one market (a multiple of its tick). On testnet the price holds the market against the built-in feed until POST /operator/index-price/release (GET /price shows `indexHeld`). `null` once durable.',
  auth: false, operator: true, body: PRICE_SCHEMA, response: S.NULL_SCHEMA, errors: [...OPERATOR_KEY, ...BAD_FIELDS, SYMBOL_NOT_FOUND, OFF_TICK, OVERLOADED],
};

export const INDEX_PRICE_RELEASE: Endpoint<ReleaseBody> = {
  method: 'post', path: '/operator/index-price/release', tag: 'Operator', summary: 'Hand a market back to the built-in feed', description: 'Testnet: the built-in feed moves the index again, walking from the operator\'s price. `null`.',
  auth: false, operator: true, body: RELEASE_SCHEMA, response: S.NULL_SCHEMA, errors: [...OPERATOR_KEY, ...BAD_FIELDS, SYMBOL_NOT_FOUND, [400, NO_FEED]],
};

export const SNAPSHOT: Endpoint = {
  method: 'post', path: '/operator/snapshot', tag: 'Operator', summary: 'Take a snapshot now', description: 'Resolves once the snapshot is saved, with the journal sequence number it is of.',
  auth: false, operator: true, response: S.SNAPSHOT_TAKEN_SCHEMA, errors: [...OPERATOR_KEY],
};

export const STATE_HASH: Endpoint = {
  method: 'get', path: '/operator/state-hash', tag: 'Operator', summary: 'State hash', description: 'The hash of the whole state (the exchange and every book) and the first broken invariant, if any: two exchanges that replayed the same journal answer the same hashes.',
  auth: false, operator: true, response: S.STATE_HASH_SCHEMA, errors: [...OPERATOR_KEY],
};
