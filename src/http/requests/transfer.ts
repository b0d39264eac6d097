/**
 * The POST /account/transfer body: its schema, and the step from a valid body to the signed
 * `Transfer` message (the body's own strings, as the client signed them) and the amount in
 * collateral base units. `amount` is a positive decimal with at most 6 decimals (USD); finer
 * input is refused, never rounded.
 */
import { COLLATERAL_SCALE, MAX_UNITS } from '../../config/market.ts';
import { parseDecimal } from '../../numeric/decimal.ts';
import type { TransferMessage, SignedRequest } from '../../auth/typed-data.ts';
import { failure, GatewayCode } from '../errors.ts';
import { Field } from '../validation.ts';
import type { HttpReply } from '../uws.ts';

/** An `amount` that is not a positive USD decimal: the field's `x-error` and `transferIntent`'s refusal. */
export const TRANSFER_AMOUNT_TEXT = 'amount must be a positive decimal string of USD with at most 6 decimals, such as "100.5"';

export const TRANSFER_REQUEST_SCHEMA = {
  title: 'TransferRequest',
  type: 'object',
  properties: {
    accountFrom: { ...Field.address, description: 'user debited (must be the signer and the target)' },
    accountTo: { ...Field.address, description: 'user credited (the same account for a move between its subaccounts)' },
    subaccountIndexFrom: Field.subaccountIndex,
    subaccountIndexTo: Field.subaccountIndex,
    amount: { type: 'string', pattern: '^[0-9]{1,20}(\\.[0-9]{1,40})?$', maxLength: 60, 'x-error': TRANSFER_AMOUNT_TEXT },
    feedId: { type: 'string', pattern: '^0x[0-9a-fA-F]{1,64}$', 'x-error': 'feedId must be a 0x-prefixed hex string of at most 32 bytes', description: 'hex id of the market feed to transfer from (signed; collateral is one USD pool)' },
    nonce: { ...Field.uint64, description: 'unique per (accountFrom, subaccountIndexFrom)' },
    expiresAt: { ...Field.uint64, description: 'milliseconds; the transfer is refused after it' },
    target: { ...Field.address, description: 'user requesting the transfer: accountFrom itself (delegates are forbidden)' },
    signatures: { ...Field.signatures, description: 'exactly one EIP-712 `Transfer` signature by accountFrom' },
  },
  required: ['accountFrom', 'accountTo', 'subaccountIndexFrom', 'subaccountIndexTo', 'amount', 'feedId', 'nonce', 'expiresAt', 'target', 'signatures'],
  additionalProperties: false,
} as const;

/** The request body: the signed message's fields as JSON carries them, and the signature. */
export type TransferBody = SignedRequest<TransferMessage>;

/**
 * The signed message and the amount in base units, or the 400 refusing the amount.
 * `aboveAnyBalance`: a well-formed amount past the largest the ledger holds (2^53 − 1 base
 * units, about 9 billion USD), which exceeds every balance; the route answers it as it answers
 * any amount above the sender's balance, once the signature is checked (it was a format error).
 */
export function transferIntent(body: TransferBody): { ok: true; message: TransferMessage; amount: bigint; aboveAnyBalance: boolean } | { ok: false; reply: HttpReply } {
  const amount = parseDecimal(body.amount, COLLATERAL_SCALE, MAX_UNITS);
  const aboveAnyBalance = !amount.ok && amount.problem === 'tooLarge';
  if (!aboveAnyBalance && (!amount.ok || amount.value <= 0n)) return { ok: false, reply: failure(GatewayCode.InvalidField, TRANSFER_AMOUNT_TEXT) };
  const { accountFrom, accountTo, subaccountIndexFrom, subaccountIndexTo, feedId, nonce, expiresAt, target } = body;
  return { ok: true, amount: amount.ok ? amount.value : MAX_UNITS, aboveAnyBalance, message: { accountFrom, accountTo, subaccountIndexFrom, subaccountIndexTo, amount: body.amount, feedId, nonce, expiresAt, target } };
}
