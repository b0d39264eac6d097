/**
 * POST /faucet (testnet only): 10,000 USD of test collateral for the logged-in account.
 *
 * - Bearer token required (401 texts of every /account/* route), and the body's `account` must
 *   be the token's own address: the faucet funds the wallet that logged in, not anybody's
 *   (403 `The faucet credits only the logged-in account: the token is for <caller>`).
 *   Any subaccount of it (`subaccountIndex`, default 0).
 * - A daily allowance per account (address, all its subaccounts together): `FAUCET_DAILY_CREDITS`
 *   credits, 50,000 USD, per UTC day. Beyond it: 429 naming the allowance and when it resets,
 *   with `Retry-After` (seconds until 00:00 UTC). The allowance travels in the journaled Faucet
 *   command and is checked against the exchange's own replayed state (app/faucet-day.ts),
 *   so a restart neither forgets nor re-grants what was credited.
 * - Charged to the account's request budget like any /account/* call.
 */
import { COLLATERAL_SCALE } from '../../config/market.ts';
import { formatDecimal } from '../../numeric/decimal.ts';
import { CommandKind } from '../../app/commands.ts';
import { ExchangeCode } from '../../app/codes.ts';
import { DAY_MS, utcDay } from '../../app/faucet-day.ts';
import { Field } from '../validation.ts';
import type { AccountGuard } from '../auth-guard.ts';
import type { Clock } from '../ports.ts';
import type { HttpReply } from '../uws.ts';
import { runCommand, type OperatorPort } from './operator.ts';
import type { DeclaredRoute, Endpoint } from '../endpoint.ts';
import { BAD_FIELDS, OVERLOADED, TOO_MANY_SUBACCOUNTS } from '../endpoint-errors.ts';
import { plainText } from '../errors.ts';
import * as S from '../schemas.ts';
import { lowercaseAddress } from '../../auth/address.ts';

/** One faucet credit: 10,000 USD. */
const FAUCET_AMOUNT = 10_000n * 10n ** BigInt(COLLATERAL_SCALE);
/** Credits an account may take per UTC day. */
const FAUCET_DAILY_CREDITS = 5;
/** The most the faucet gives one account in a UTC day: 50,000 USD. */
const FAUCET_DAILY_ALLOWANCE = FAUCET_AMOUNT * BigInt(FAUCET_DAILY_CREDITS);

const usd = (units: bigint) => formatDecimal(units, COLLATERAL_SCALE);

/** The faucet's terms as GET /config and the docs publish them. */
export const FAUCET_TERMS = {
  credit: usd(FAUCET_AMOUNT),
  creditsPerDay: FAUCET_DAILY_CREDITS,
  allowancePerDay: usd(FAUCET_DAILY_ALLOWANCE),
  per: 'account (address, all its subaccounts together), logged in',
  resets: 'at 00:00 UTC',
} as const;

const FAUCET_REQUEST_SCHEMA = {
  title: 'FaucetRequest',
  type: 'object',
  properties: {
    account: { ...Field.address, description: 'the logged-in account (the token\'s address)' },
    subaccountIndex: { ...Field.subaccountIndex, description: 'default 0' },
  },
  required: ['account'],
  additionalProperties: false,
} as const;
type FaucetBody = { account: string; subaccountIndex?: number };

const FAUCET_OTHER_ACCOUNT = 'The faucet credits only the logged-in account: the token is for <caller>';
const FAUCET_ALLOWANCE_USED = `Faucet allowance used: at most ${FAUCET_TERMS.allowancePerDay} USD (${FAUCET_DAILY_CREDITS} credits of ${FAUCET_TERMS.credit}) per account per UTC day; it resets at <time> (00:00 UTC)`;


/** The refusal of a credit beyond the allowance at `now`: when it resets, as text and `Retry-After`. */
function allowanceUsed(now: number): HttpReply {
  const resetsAt = (utcDay(now) + 1) * DAY_MS;
  return plainText(429, FAUCET_ALLOWANCE_USED.replace('<time>', new Date(resetsAt).toISOString()), { 'retry-after': String(Math.ceil((resetsAt - now) / 1000)) });
}

export function faucetRoute(operator: Pick<OperatorPort, 'submit'>, guard: AccountGuard, clock: Clock): DeclaredRoute {
  return guard.route(FAUCET, async (_req, ctx) => {
    const account = lowercaseAddress(ctx.body.account);
    if (account !== ctx.caller) return plainText(403, FAUCET_OTHER_ACCOUNT.replace('<caller>', ctx.caller));
    const time = clock();
    const command = { kind: CommandKind.Faucet, time, account, subaccountIndex: ctx.body.subaccountIndex ?? 0, amount: FAUCET_AMOUNT, allowance: FAUCET_DAILY_ALLOWANCE } as const;
    return runCommand(operator, command, (code) => (code === ExchangeCode.FaucetAllowanceUsed ? allowanceUsed(time) : undefined));
  });
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const FAUCET: Endpoint<FaucetBody> = {
  method: 'post', path: '/faucet', tag: 'Testnet', summary: 'Test collateral (testnet only)',
  description: `${FAUCET_TERMS.credit} USD of test collateral for the logged-in account: \`account\` must be the token's own address (any of its subaccounts). At most ${FAUCET_TERMS.creditsPerDay} credits (${FAUCET_TERMS.allowancePerDay} USD) per account — the address, all its subaccounts together — per UTC day; beyond it a 429 naming the allowance and when it resets (00:00 UTC), with \`Retry-After\`. Not served on mainnet (404). The allowance is counted from the exchange's journaled state: a restart does not reset it.`,
  auth: true, body: FAUCET_REQUEST_SCHEMA, response: S.NULL_SCHEMA,
  errors: [...BAD_FIELDS, TOO_MANY_SUBACCOUNTS, [403, FAUCET_OTHER_ACCOUNT], [429, FAUCET_ALLOWANCE_USED], OVERLOADED],
};
