/**
 * The POST /account/margin body: its schema, and the step from a valid body to the signed
 * `MarginUpdate` message (the body's strings as signed) and the fraction at RATE_SCALE.
 * `margin` is the desired margin fraction (0.33 = 33 %, about 3× leverage), greater than 0 and
 * at most 1, with at most 8 decimals; the ledger bounds it by the market's maximum leverage.
 */
import { findMarket, MAX_UNITS, RATE_ONE, RATE_SCALE, type MarketSpec } from '../../config/market.ts';
import { parseDecimal } from '../../numeric/decimal.ts';
import type { MarginUpdateMessage, SignedRequest } from '../../auth/typed-data.ts';
import { failure, GatewayCode } from '../errors.ts';
import { Field } from '../validation.ts';
import type { HttpReply } from '../uws.ts';

/** A `margin` that is not a fraction in (0, 1]: the field's `x-error` and `marginIntent`'s refusal. */
export const MARGIN_FRACTION_TEXT = 'margin must be a fraction greater than 0 and at most 1 with at most 8 decimals, such as "0.33"';

export const MARGIN_REQUEST_SCHEMA = {
  title: 'MarginUpdateRequest',
  type: 'object',
  properties: {
    account: { ...Field.address, description: 'user whose margin is configured' },
    subaccountIndex: Field.subaccountIndex,
    symbol: { type: 'string', minLength: 1, maxLength: 40, description: 'market' },
    isolated: { type: 'boolean', description: 'true reserves margin for this market; false means cross margin' },
    margin: { type: 'string', pattern: '^[0-9]{1,20}(\\.[0-9]{1,40})?$', maxLength: 60, 'x-error': MARGIN_FRACTION_TEXT, description: 'margin fraction (0.33 = 33 %)' },
    nonce: { ...Field.uint64, description: 'unique per (account, subaccountIndex, signer)' },
    expiresAt: { ...Field.uint64, description: 'milliseconds; refused after it' },
    signatures: { ...Field.signatures, description: 'exactly one EIP-712 `MarginUpdate` signature by the account or a trade delegate' },
  },
  required: ['account', 'subaccountIndex', 'symbol', 'isolated', 'margin', 'nonce', 'expiresAt', 'signatures'],
  additionalProperties: false,
} as const;

/** The request body: the signed message's fields as JSON carries them, and the signature. */
export type MarginBody = SignedRequest<MarginUpdateMessage>;

export type MarginIntent = { ok: true; market: MarketSpec; fraction: bigint; message: MarginUpdateMessage } | { ok: false; reply: HttpReply };

export function marginIntent(body: MarginBody, markets: readonly MarketSpec[]): MarginIntent {
  const market = findMarket(markets, body.symbol);
  if (market === undefined) return { ok: false, reply: failure(GatewayCode.SymbolNotFound) };
  const fraction = parseDecimal(body.margin, RATE_SCALE, MAX_UNITS);
  if (!fraction.ok || fraction.value <= 0n || fraction.value > RATE_ONE) return { ok: false, reply: failure(GatewayCode.InvalidField, MARGIN_FRACTION_TEXT) };
  const { account, subaccountIndex, symbol, isolated, margin, nonce, expiresAt } = body;
  return { ok: true, market, fraction: fraction.value, message: { account, subaccountIndex, symbol, isolated, margin, nonce, expiresAt } };
}
