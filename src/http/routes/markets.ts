/** GET /markets, GET /config and GET /time: what a client needs before its first order. */
import { COLLATERAL_SCALE, formatRate, type MarketSpec } from '../../config/market.ts';
import { formatDecimal } from '../../numeric/decimal.ts';
import { signingRules } from '../../auth/typed-data.ts';
import { FAUCET_TERMS } from './faucet.ts';
import { TICK_MULTIPLIERS, DEFAULT_BOOK_DEPTH } from './book.ts';
import { DEFAULT_TRADES_LIMIT } from './trades.ts';
import { DEFAULT_CANDLES_LIMIT } from './candles.ts';
import { DEFAULT_FILLS_LIMIT } from './account-fills.ts';
import { MAX_ORDERS_LISTED } from './order-reads.ts';
import { ACCOUNT_REQUESTS_PER_SECOND } from '../auth-guard.ts';
import { NONCE_WINDOW } from '../../auth/nonces.ts';
import type { Clock, MarketDataPort } from '../ports.ts';
import type { HttpReply } from '../uws.ts';
import { route, type DeclaredRoute, type Endpoint } from '../endpoint.ts';
import { PUBLIC_BUDGET } from '../endpoint-errors.ts';
import { MAX_BOOK_DEPTH, MAX_LIMIT } from '../errors.ts';
import * as S from '../schemas.ts';

function marketView(m: MarketSpec) {
  return {
    symbol: m.symbol,
    base: m.base,
    quote: m.quote,
    tickSize: m.tickSize,
    tickSizeMultipliers: [...TICK_MULTIPLIERS],
    lotSize: m.lotSize,
    minSize: m.minSize,
    maxLeverage: m.maxLeverage,
    initialMarginFraction: formatRate(m.initialMarginFraction),
    maintenanceMarginFraction: formatRate(m.maintenanceMarginFraction),
    marginTiers: m.marginTiers.map((t) => ({
      notionalFloor: formatDecimal(t.notionalFloor, COLLATERAL_SCALE),
      initialMarginFraction: formatRate(t.initialMarginFraction),
      maintenanceMarginFraction: formatRate(t.maintenanceMarginFraction),
    })),
    makerFee: formatRate(m.makerFee),
    takerFee: formatRate(m.takerFee),
    maxOriginatorFee: formatRate(m.maxOriginatorFee),
    fundingIntervalMs: m.fundingIntervalMs,
    fundingRateCap: formatRate(m.fundingRateCap),
    interestRate: formatRate(m.interestRate),
    oracleFeedId: m.oracleFeedId,
  };
}

export function marketsRoute(port: MarketDataPort): DeclaredRoute {
  // Market parameters do not change while the process runs: serialized on the first request, kept.
  let reply: HttpReply | undefined;
  return route(MARKETS, (_req, _query, serialize) => (reply ??= { status: 200, body: serialize({ markets: port.markets.map(marketView) }) }));
}

/**
 * GET /config, written once with JSON.stringify rather than the declared serializer: the EIP-712
 * types and the `signing` prose go to the client as they are, free-form where S.CONFIG_SCHEMA
 * documents only their outline, and a serializer would drop what the schema does not spell out.
 */
export function configRoute(port: MarketDataPort): DeclaredRoute {
  const body = JSON.stringify({
    profile: port.profile.name,
    chainId: port.profile.chainId,
    verifyingContract: port.profile.verifyingContract,
    baseUrl: port.profile.baseUrl,
    faucet: port.profile.faucet,
    collateral: { asset: 'USD', decimals: COLLATERAL_SCALE },
    eip712: port.typedData(),
    signing: signingRules(),
    markets: port.markets.map(marketView),
    limits: {
      // Each the constant its route or check reads: /config cannot say other than what is enforced.
      requestsPerSecondPerAccount: ACCOUNT_REQUESTS_PER_SECOND,
      bookDepth: { min: 1, max: MAX_BOOK_DEPTH, default: DEFAULT_BOOK_DEPTH },
      tradesLimit: { min: 1, max: MAX_LIMIT, default: DEFAULT_TRADES_LIMIT },
      candlesLimit: { min: 1, max: MAX_LIMIT, default: DEFAULT_CANDLES_LIMIT },
      fillsLimit: { min: 1, max: MAX_LIMIT, default: DEFAULT_FILLS_LIMIT },
      ordersLimit: { min: 1, max: MAX_ORDERS_LISTED, default: MAX_ORDERS_LISTED },
      nonceWindow: NONCE_WINDOW,
      ...(port.profile.faucet ? { faucet: FAUCET_TERMS } : {}),
      ...(port.accountLimits === undefined
        ? {}
        : { minTransfer: formatDecimal(port.accountLimits.minTransfer, COLLATERAL_SCALE), subaccountsPerAccount: port.accountLimits.maxSubaccounts }),
    },
  });
  return route(CONFIG, (): HttpReply => ({ status: 200, body }));
}

export function timeRoute(clock: Clock): DeclaredRoute {
  return route(TIME, (_req, _query, serialize): HttpReply => ({ status: 200, body: serialize({ serverTime: clock() }) }));
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const CONFIG: Endpoint = { method: 'get', path: '/config', tag: 'Market data', summary: 'Deployment configuration', description: 'Profile, chain id, verifying contract, the EIP-712 domain and types to sign with (`eip712`: pass `domain`, `types` and a primary type to viem or ethers `signTypedData`), markets and limits.', auth: false, response: S.CONFIG_SCHEMA, errors: [PUBLIC_BUDGET], ignoresQuery: true };

export const MARKETS: Endpoint = { method: 'get', path: '/markets', tag: 'Market data', summary: 'Markets', description: 'Every market with its tick, lot, minimum size, leverage, margin tiers, fees and funding parameters (decimal strings).', auth: false, response: S.MARKETS_SCHEMA, errors: [PUBLIC_BUDGET], ignoresQuery: true };

export const TIME: Endpoint = { method: 'get', path: '/time', tag: 'Market data', summary: 'Server time', description: 'Milliseconds since the epoch: align `expiresAt` and nonces with it.', auth: false, response: S.TIME_SCHEMA, errors: [PUBLIC_BUDGET], ignoresQuery: true };
