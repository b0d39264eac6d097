/**
 * @module client/signing
 *
 * What a client signs, written from the published rules of GET /config `signing` (client side,
 * never the server's own code, so the tests sign as any client would): an Order body becomes its
 * EIP-712 message (orderType in lowerCamel, the flags top-level, null or absent strings as "",
 * a null period as 0, decimals verbatim); Transfer, MarginUpdate and Delegation bodies are signed
 * as sent. `checkOrderRule` maps the worked example GET /config publishes and refuses to go on
 * if the result is not the published message, so a change of the rules stops a client loudly
 * instead of making every signature invalid.
 *
 * Wallets: any viem `LocalAccount` (a private key, a mnemonic) or a viem `WalletClient` with an
 * account (a JSON-RPC or browser wallet: `createWalletClient({ account, transport: custom(window.ethereum) })`).
 *
 * May import: viem (types and the WalletClient's actions).
 */
import type { Address, Hex, LocalAccount, WalletClient, TypedDataDomain } from 'viem';

/** A viem account that signs locally, or a viem wallet client holding an account. */
export type Wallet = LocalAccount | WalletClient;

/**
 * What the client needs of a wallet: its address, a personal_sign and an EIP-712 signature.
 * `signerOf` makes one of a viem wallet; a client may be given any other (`ClientOptions.signer`).
 */
export interface Signer {
  readonly address: Address;
  signMessage(message: string): Promise<Hex>;
  signTypedData(domain: TypedDataDomain, types: Record<string, readonly { name: string; type: string }[]>, primaryType: string, message: Record<string, unknown>): Promise<Hex>;
}

export function signerOf(wallet: Wallet): Signer {
  if ('transport' in wallet) {
    const account = wallet.account;
    if (account === undefined) throw new Error('the wallet client has no account: create it with { account }');
    return {
      address: account.address,
      signMessage: (message) => wallet.signMessage({ account, message }),
      signTypedData: (domain, types, primaryType, message) => wallet.signTypedData({ account, domain, types, primaryType, message }),
    };
  }
  return {
    address: wallet.address,
    signMessage: (message) => wallet.signMessage({ message }),
    signTypedData: (domain, types, primaryType, message) => wallet.signTypedData({ domain, types, primaryType, message }),
  };
}

export interface OrderFlags {
  ioc: boolean;
  postOnly: boolean;
  reduceOnly: boolean;
}

/** A POST /account/order body before its signature (also each order of a batch). */
export interface OrderBody {
  account: string;
  subaccountIndex: number;
  symbol: string;
  orderType: string;
  price: string;
  quantity: string;
  nonce: number;
  expiresAt: number;
  flags: OrderFlags;
  originator: string;
  originatorFee: number;
  clientId?: string | null;
  triggerPrice?: string | null;
  parentOrderId?: string | null;
  period?: number | null;
  trailingPercent?: string | null;
  stopLoss?: { triggerPrice?: string; price?: string } | null;
  takeProfit?: { triggerPrice?: string; price?: string } | null;
}

/** The order types in the lowerCamel spelling the published rules sign, by their lowercase form. */
const ORDER_TYPES = new Map(['unsupported', 'limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg'].map((t) => [t.toLowerCase(), t]));

/** `LIMIT`, `Limit`, `takeprofit` → the lowerCamel spelling signed; an unknown type as written (the exchange refuses it by name). */
function signedOrderType(text: string): string {
  return ORDER_TYPES.get(text.toLowerCase()) ?? text;
}

/** The EIP-712 `Order` message of a body, by the published rules. */
export function orderMessage(body: OrderBody): Record<string, unknown> {
  return {
    account: body.account,
    subaccountIndex: body.subaccountIndex,
    symbol: body.symbol,
    orderType: signedOrderType(body.orderType),
    price: body.price,
    quantity: body.quantity,
    nonce: BigInt(body.nonce),
    expiresAt: BigInt(body.expiresAt),
    ioc: body.flags.ioc,
    postOnly: body.flags.postOnly,
    reduceOnly: body.flags.reduceOnly,
    originator: body.originator,
    originatorFee: BigInt(body.originatorFee),
    clientId: body.clientId ?? '',
    triggerPrice: body.triggerPrice ?? '',
    parentOrderId: body.parentOrderId ?? '',
    period: BigInt(body.period ?? 0),
    trailingPercent: body.trailingPercent ?? '',
  };
}

/** The fields of `body` that `type` names: Transfer, MarginUpdate and Delegation are signed as sent. */
export function asSentMessage(fields: readonly { name: string; type: string }[], body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.name, body[f.name]]));
}

/** GET /config `signing.Order.example`: a body and the message the server signs for it. */
export interface PublishedExample {
  body: OrderBody;
  message: Record<string, unknown>;
}

/** Throws unless `orderMessage` maps the published example body to the published message. */
export function checkOrderRule(example: PublishedExample): void {
  const ours = orderMessage(example.body);
  const differ = Object.keys(example.message).filter((k) => String(ours[k]) !== String(example.message[k]));
  if (differ.length > 0) throw new Error(`this client signs orders differently from the exchange's published rules (fields ${differ.join(', ')}): update the client`);
}
