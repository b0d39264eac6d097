/**
 * Shared fixtures of the auth tests: named wallets (viem accounts and ethers wallets over the
 * same keys, and the keys, of which a test/harness `Trader` is made), the testnet domain, and
 * one valid message per action.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { Wallet } from 'ethers';
import { PROFILES } from '../../src/config/profile.ts';
import { eip712Domain, TYPES, type DelegationMessage, type MarginUpdateMessage, type MessageOf, type OrderMessage, type PrimaryType, type TransferMessage } from '../../src/auth/typed-data.ts';
import type { Address } from '../../src/auth/address.ts';
import type { AuthRefusal } from '../../src/auth/codes.ts';
import { codeFailure } from '../../src/http/errors.ts';

export const TESTNET = PROFILES.testnet;
export const MAINNET = PROFILES.mainnet;
export const TESTNET_DOMAIN = eip712Domain(TESTNET);

/** What a client reads for a refusal: the status and text of the gateway's reply (http/errors). */
export function refusalReply(refusal: AuthRefusal): { status: number; text: string } {
  const reply = codeFailure(refusal);
  return { status: reply.status, text: reply.body };
}

export const ALICE_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const BOB_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
export const CAROL_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

export const ALICE_VIEM = privateKeyToAccount(ALICE_KEY);
export const BOB_VIEM = privateKeyToAccount(BOB_KEY);
export const CAROL_VIEM = privateKeyToAccount(CAROL_KEY);
export const ALICE_ETHERS = new Wallet(ALICE_KEY);
export const BOB_ETHERS = new Wallet(BOB_KEY);

export const ALICE = ALICE_VIEM.address.toLowerCase() as Address;
export const BOB = BOB_VIEM.address.toLowerCase() as Address;
export const CAROL = CAROL_VIEM.address.toLowerCase() as Address;

/** 2030-01-01T00:00:00Z in ms; requests below expire one hour later. */
export const NOW = 1_893_456_000_000;
export const IN_ONE_HOUR = NOW + 3_600_000;

export const ALICE_BUY_5_AT_10_LIMIT: OrderMessage = {
  account: ALICE,
  subaccountIndex: 0,
  symbol: 'BTC-USD-PERP',
  orderType: 'limit',
  price: '10',
  quantity: '5',
  nonce: 1,
  expiresAt: IN_ONE_HOUR,
  ioc: false,
  postOnly: false,
  reduceOnly: false,
  originator: ALICE,
  originatorFee: 0,
  clientId: '',
  triggerPrice: '',
  parentOrderId: '',
  period: 0,
  trailingPercent: '',
};

export const ALICE_TRANSFER_100_TO_BOB: TransferMessage = {
  accountFrom: ALICE,
  accountTo: BOB,
  subaccountIndexFrom: 0,
  subaccountIndexTo: 0,
  amount: '100',
  feedId: '0x01',
  nonce: 1,
  expiresAt: IN_ONE_HOUR,
  target: ALICE,
};

export const ALICE_ISOLATED_MARGIN_033: MarginUpdateMessage = {
  account: ALICE,
  subaccountIndex: 0,
  symbol: 'BTC-USD-PERP',
  isolated: true,
  margin: '0.33',
  nonce: 1,
  expiresAt: IN_ONE_HOUR,
};

export const ALICE_DELEGATES_TRADE_READ_TO_BOB: DelegationMessage = {
  account: ALICE,
  subaccountIndex: 0,
  delegate: BOB,
  scopes: 'trade,read',
  action: 'add',
  nonce: 1,
  expiresAt: IN_ONE_HOUR,
};

/** uint fields as bigint, the form viem's types ask for uint64 (uint32 stays a number). */
export function forViem(message: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(message).map(([k, v]) => [k, typeof v === 'number' && !/subaccountIndex/.test(k) ? BigInt(v) : v]));
}

export function signWithViem<T extends PrimaryType>(account: typeof ALICE_VIEM, primaryType: T, message: MessageOf[T], domain = TESTNET_DOMAIN): Promise<`0x${string}`> {
  return account.signTypedData({ domain, types: TYPES, primaryType, message: forViem(message) } as never);
}

export function signWithEthers<T extends PrimaryType>(wallet: Wallet, primaryType: T, message: MessageOf[T], domain = TESTNET_DOMAIN): Promise<string> {
  // ethers infers the primary type, so it takes only the one struct being signed.
  return wallet.signTypedData(domain, { [primaryType]: TYPES[primaryType].map((f) => ({ ...f })) }, message as unknown as Record<string, unknown>);
}
