/**
 * @module http/codes
 *
 * Registers the auth (1000s) and ledger (2000s) code tables with the gateway's one mapping
 * (errors.ts), so a rejection from any part becomes a status and its exact text through
 * `failure(code, detail)`. Importing this module is enough; `codeFailure` turns a write's
 * refusal (`{code, params}`) into the reply, filling the text's `<name>` slot from `params`.
 *
 * Ledger statuses follow design.md: 404 for an unknown account or market, 409 for a state that
 * refuses the change (liquidation in progress, an order id already taken), 400 for the rest.
 * Conditional-order codes (4000s) the same way: 404 for a parent or order that is not there (or
 * not the caller's), 409 when the market's or account's state refuses the order now (the mark
 * already crossed the trigger, no mark yet, no position to close, an id in use), 400 for the rest.
 * The account limits' codes (9100s) are 400.
 * May import: http/errors, auth/codes, ledger/codes, conditional/codes, app/codes, http/uws.
 */
import { AUTH_CODES } from '../auth/codes.ts';
import { CONDITIONAL_TEXT, ConditionalCode } from '../conditional/codes.ts';
import { LEDGER_CODE_TEXT, LedgerCode } from '../ledger/codes.ts';
import { ExchangeCode } from '../app/codes.ts';
import { failure, registerCodes } from './errors.ts';
import type { HttpReply } from './uws.ts';

/** `Unauthorized to change margin for account <account>` → fill the one slot with `detail`. */
function withSlot(text: string): string | ((detail: string) => string) {
  return /<\w+>/.test(text) ? (detail: string) => text.replace(/<\w+>/, detail) : text;
}

const LEDGER_STATUS: Readonly<Record<number, number>> = {
  [LedgerCode.AccountNotFound]: 404,
  [LedgerCode.MarketNotFound]: 404,
  [LedgerCode.OrderExists]: 409,
  [LedgerCode.InLiquidation]: 409,
  [LedgerCode.OrdersOpenInMarket]: 409,
  [LedgerCode.FaucetDisabled]: 403,
};

registerCodes(Object.fromEntries(Object.entries(AUTH_CODES).map(([code, e]) => [code, { status: e.status, text: withSlot(e.text) }])));
registerCodes(
  Object.fromEntries(
    Object.entries(LEDGER_CODE_TEXT)
      .filter(([code]) => Number(code) !== LedgerCode.Ok)
      .map(([code, text]) => [code, { status: LEDGER_STATUS[Number(code)] ?? 400, text }]),
  ),
);

const CONDITIONAL_STATUS: Readonly<Record<number, number>> = {
  [ConditionalCode.OrderIdExists]: 409,
  [ConditionalCode.GroupIdExists]: 409,
  [ConditionalCode.TriggerAlreadyCrossed]: 409,
  [ConditionalCode.MarkPriceUnknown]: 409,
  [ConditionalCode.NoPositionToClose]: 409,
  [ConditionalCode.ParentNotFound]: 404,
  [ConditionalCode.OrderNotFound]: 404,
  [ConditionalCode.NotOwner]: 404,
};

registerCodes(
  Object.fromEntries(
    Object.values(ConditionalCode)
      .filter((code) => code !== ConditionalCode.Ok)
      .map((code) => [code, { status: CONDITIONAL_STATUS[code] ?? 400, text: CONDITIONAL_TEXT[code] }]),
  ),
);

// The account limits (app/account-limits.ts), in the style of `Transfer amount exceeds available balance`.
registerCodes({
  [ExchangeCode.TransferBelowMinimum]: { status: 400, text: (minimum) => `Transfer amount below the minimum of ${minimum} USD` },
  [ExchangeCode.TooManySubaccounts]: { status: 400, text: (max) => `Too many subaccounts: an account holds at most ${max}` },
  [ExchangeCode.TooManyOpenOrders]: { status: 400, text: (max) => `Too many open orders: a subaccount holds at most ${max}` },
});

/** The reply for a refusal from any part's table (`params` fills the text's slot). */
export function codeFailure(refusal: { code: number; params?: Readonly<Record<string, string>> }): HttpReply {
  const detail = refusal.params === undefined ? '' : (Object.values(refusal.params)[0] ?? '');
  return failure(refusal.code, detail);
}
