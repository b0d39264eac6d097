/**
 * @module ledger/codes
 *
 * The ledger's result codes (2000–2999) and the user-facing text for each: one table. Codes
 * are numeric and stable (they are journaled); the HTTP adapter maps them to a status and
 * the text here. Rejections are values; an exception from the ledger is a broken invariant.
 * May import: nothing.
 */

export const LedgerCode = {
  Ok: 0,
  AccountNotFound: 2001,
  InsufficientBalance: 2002,
  InvalidAmount: 2003,
  InsufficientMargin: 2004,
  MarginOutOfBounds: 2005,
  MarketNotFound: 2006,
  InvalidAddress: 2007,
  InvalidSubaccount: 2008,
  OrderExists: 2009,
  InvalidOrder: 2010,
  SameAccount: 2011,
  FaucetDisabled: 2012,
  InLiquidation: 2013,
  OrdersOpenInMarket: 2014,
} as const;
export type LedgerCode = (typeof LedgerCode)[keyof typeof LedgerCode];

/**
 * Suggested text per code; the spec's exact messages where the spec has one. `InvalidSubaccount`
 * has none here: its bound is the one auth checks first, and it reads auth's
 * `Invalid subaccount index` (AuthCode.InvalidSubaccountIndex; the gateway maps both).
 */
export const LEDGER_CODE_TEXT: Readonly<Record<number, string>> = {
  [LedgerCode.Ok]: 'OK',
  [LedgerCode.AccountNotFound]: 'Account not found',
  [LedgerCode.InsufficientBalance]: 'Transfer amount exceeds available balance',
  [LedgerCode.InvalidAmount]: 'Amount must be positive',
  [LedgerCode.InsufficientMargin]: 'Insufficient margin',
  [LedgerCode.MarginOutOfBounds]: 'Margin must be between 1/maxLeverage and 1',
  [LedgerCode.MarketNotFound]: 'Symbol not found',
  [LedgerCode.InvalidAddress]: 'Invalid account address',
  [LedgerCode.OrderExists]: 'Order already exists',
  [LedgerCode.InvalidOrder]: 'Invalid order price or quantity',
  [LedgerCode.SameAccount]: 'Cannot transfer to the same subaccount',
  [LedgerCode.FaucetDisabled]: 'Faucet is not available',
  [LedgerCode.InLiquidation]: 'Account is being liquidated',
  [LedgerCode.OrdersOpenInMarket]: 'Cannot switch between cross and isolated margin, or raise an isolated margin fraction, while orders are open in this market: cancel them first',
};
