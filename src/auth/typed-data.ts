/**
 * @module auth/typed-data
 *
 * What a client signs: the EIP-712 domain of a deployment profile and the four action types
 * (Order, Transfer, MarginUpdate, Delegation), in the exact shape viem and ethers
 * `signTypedData` take, so `GET /config` publishes `publishedTypedData(profile)` verbatim; and
 * the digest (`\x19\x01 ‖ domainSeparator ‖ hashStruct(message)`) computed here with a small
 * EIP-712 encoder for flat structs over keccak-256.
 *
 * May import: ./keccak, config/profile (type), ./address, ./codes, types/orders.
 *
 * Invariants:
 *  - The action is part of what is signed: each action has its own primary type, hence its own
 *    type hash, so an Order signature never verifies as a Transfer (or anything else).
 *  - The domain binds name, version, chainId and verifyingContract of the profile; the domain
 *    separator is derived from those values on every call (cached by value, never by profile
 *    identity), so a changed chainId cannot reuse a stale separator.
 *  - Only the declared fields of a type are encoded; extra properties of a message are ignored.
 *  - Null mapping (orders): the optional fields are always signed; a JSON `null` or absent field is
 *    signed as `""` for strings (clientId, triggerPrice, parentOrderId, trailingPercent) and `0` for
 *    `period`. `orderType` is signed in lowerCamel (`limit`, `takeProfit`, …) whatever spelling
 *    the JSON body used. Decimal strings (price, quantity, amount, margin) are signed verbatim:
 *    "1.50" and "1.5" are different messages.
 *  - uint fields accept a safe integer `number` or a `bigint`, within the type's range.
 *
 * Published with the types: `signingRules()` (GET /config `signing`: the body → message rules and a
 * worked Order example computed by `orderMessage`), and `signedMessageJson`, the message as an
 * `Invalid signature` answer shows it (http/signature-refusal.ts).
 *
 * Limits: flat structs only (no arrays, no nested structs) and the atomic types address, bool,
 * string, uint8…uint256 — all the published types need.
 */
import { keccak256 } from './keccak.ts';
import type { Profile } from '../config/profile.ts';
import { hexInto, toAddress } from './address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';
import { SIGNED_ORDER_TYPES, type SignedOrderType } from '../types/orders.ts';

export interface TypedField {
  readonly name: string;
  readonly type: string;
}

/** The EIP-712 domain in the form wallet libraries take. */
export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: `0x${string}`;
}

const DOMAIN_TYPE: readonly TypedField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** The signed action types, one primary type per action (published by GET /config). */
export const TYPES = {
  Order: [
    { name: 'account', type: 'address' },
    { name: 'subaccountIndex', type: 'uint32' },
    { name: 'symbol', type: 'string' },
    { name: 'orderType', type: 'string' },
    { name: 'price', type: 'string' },
    { name: 'quantity', type: 'string' },
    { name: 'nonce', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'ioc', type: 'bool' },
    { name: 'postOnly', type: 'bool' },
    { name: 'reduceOnly', type: 'bool' },
    { name: 'originator', type: 'address' },
    { name: 'originatorFee', type: 'uint64' },
    { name: 'clientId', type: 'string' },
    { name: 'triggerPrice', type: 'string' },
    { name: 'parentOrderId', type: 'string' },
    { name: 'period', type: 'uint64' },
    { name: 'trailingPercent', type: 'string' },
  ],
  Transfer: [
    { name: 'accountFrom', type: 'address' },
    { name: 'accountTo', type: 'address' },
    { name: 'subaccountIndexFrom', type: 'uint32' },
    { name: 'subaccountIndexTo', type: 'uint32' },
    { name: 'amount', type: 'string' },
    { name: 'feedId', type: 'string' },
    { name: 'nonce', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
    { name: 'target', type: 'address' },
  ],
  MarginUpdate: [
    { name: 'account', type: 'address' },
    { name: 'subaccountIndex', type: 'uint32' },
    { name: 'symbol', type: 'string' },
    { name: 'isolated', type: 'bool' },
    { name: 'margin', type: 'string' },
    { name: 'nonce', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
  ],
  Delegation: [
    { name: 'account', type: 'address' },
    { name: 'subaccountIndex', type: 'uint32' },
    { name: 'delegate', type: 'address' },
    { name: 'scopes', type: 'string' },
    { name: 'action', type: 'string' },
    { name: 'nonce', type: 'uint64' },
    { name: 'expiresAt', type: 'uint64' },
  ],
} as const;

export type PrimaryType = keyof typeof TYPES;

/** Which primary type each signed request uses. */
export const PRIMARY_TYPES = {
  order: 'Order',
  transfer: 'Transfer',
  marginUpdate: 'MarginUpdate',
  delegation: 'Delegation',
} as const satisfies Record<string, PrimaryType>;

type Uint = number | bigint;

export interface OrderMessage {
  account: string;
  subaccountIndex: number;
  symbol: string;
  orderType: string;
  price: string;
  quantity: string;
  nonce: Uint;
  expiresAt: Uint;
  ioc: boolean;
  postOnly: boolean;
  reduceOnly: boolean;
  originator: string;
  originatorFee: Uint;
  clientId: string;
  triggerPrice: string;
  parentOrderId: string;
  period: Uint;
  trailingPercent: string;
}

export interface TransferMessage {
  accountFrom: string;
  accountTo: string;
  subaccountIndexFrom: number;
  subaccountIndexTo: number;
  amount: string;
  feedId: string;
  nonce: Uint;
  expiresAt: Uint;
  target: string;
}

export interface MarginUpdateMessage {
  account: string;
  subaccountIndex: number;
  symbol: string;
  isolated: boolean;
  margin: string;
  nonce: Uint;
  expiresAt: Uint;
}

export interface DelegationMessage {
  account: string;
  subaccountIndex: number;
  delegate: string;
  scopes: string;
  action: 'add' | 'remove';
  nonce: Uint;
  expiresAt: Uint;
}

/** The JSON request body that carries a signed message: its fields (nonce and expiresAt as JSON numbers) and the signature. */
export type SignedRequest<M extends { nonce: Uint; expiresAt: Uint }> = Omit<M, 'nonce' | 'expiresAt'> & { nonce: number; expiresAt: number; signatures: string[] };

export interface MessageOf {
  Order: OrderMessage;
  Transfer: TransferMessage;
  MarginUpdate: MarginUpdateMessage;
  Delegation: DelegationMessage;
}

/** The POST /account/order body (and each element of a batch), `signatures` aside. */
export interface OrderRequest {
  account: string;
  subaccountIndex: number;
  symbol: string;
  orderType: string;
  price: string;
  quantity: string;
  nonce: Uint;
  expiresAt: Uint;
  flags: { ioc: boolean; postOnly: boolean; reduceOnly: boolean };
  originator: string;
  originatorFee: Uint;
  clientId?: string | null;
  triggerPrice?: string | null;
  parentOrderId?: string | null;
  period?: Uint | null;
  trailingPercent?: string | null;
}

const ORDER_TYPE_BY_LOWER = new Map<string, SignedOrderType>(SIGNED_ORDER_TYPES.map((t) => [t.toLowerCase(), t]));

/** The lowerCamel spelling of an order type given in any letter case, or undefined. */
export function canonicalOrderType(text: string): SignedOrderType | undefined {
  return ORDER_TYPE_BY_LOWER.get(text.toLowerCase());
}

/** The Order message a client signs for this request body (null mapping in the header). */
export function orderMessage(request: OrderRequest): AuthResult<OrderMessage> {
  const orderType = typeof request.orderType === 'string' ? canonicalOrderType(request.orderType) : undefined;
  if (orderType === undefined) return refused(AuthCode.InvalidField, { field: 'orderType' });
  if (request.flags === null || typeof request.flags !== 'object') return refused(AuthCode.InvalidField, { field: 'flags' });
  return accepted({
    account: request.account,
    subaccountIndex: request.subaccountIndex,
    symbol: request.symbol,
    orderType,
    price: request.price,
    quantity: request.quantity,
    nonce: request.nonce,
    expiresAt: request.expiresAt,
    ioc: request.flags.ioc,
    postOnly: request.flags.postOnly,
    reduceOnly: request.flags.reduceOnly,
    originator: request.originator,
    originatorFee: request.originatorFee,
    clientId: request.clientId ?? '',
    triggerPrice: request.triggerPrice ?? '',
    parentOrderId: request.parentOrderId ?? '',
    period: request.period ?? 0,
    trailingPercent: request.trailingPercent ?? '',
  });
}

/**
 * How a request body becomes the message a client signs, published in GET /config (`signing`)
 * and the OpenAPI text of POST /account/order, so a client signs what the server hashes. The
 * worked example's message is computed by `orderMessage` itself: it cannot drift from the rule.
 */
const ORDER_SIGNING_RULES = [
  'orderType is signed in lowerCamel (limit, twap, takeProfit, stopLoss, trailingStop, iceberg, unsupported) whatever letter case the body uses: a body with "Limit" is signed as "limit" (a signature over the body\'s own spelling, "Limit", is accepted too)',
  'flags are signed top-level: the body\'s flags.ioc, flags.postOnly and flags.reduceOnly are the message\'s ioc, postOnly and reduceOnly',
  'clientId, triggerPrice, parentOrderId and trailingPercent that are null or absent are signed as "" (the empty string)',
  'period that is null or absent is signed as 0',
  'decimal strings (price, quantity, triggerPrice, trailingPercent) are signed verbatim: "41000.50" and "41000.5" are different messages',
  'every other field is signed as the body carries it (addresses in any letter case); signatures, stopLoss and takeProfit are not signed',
] as const;

const EXAMPLE_ORDER_BODY = {
  account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  subaccountIndex: 0,
  symbol: 'BTC-USD-PERP',
  orderType: 'Limit',
  price: '41000.50',
  quantity: '-0.001',
  nonce: 1718000000000,
  expiresAt: 0,
  flags: { ioc: false, postOnly: true, reduceOnly: false },
  originator: '0x0000000000000000000000000000000000000000',
  originatorFee: 0,
  clientId: null,
  signatures: ['0x… (the 65-byte signature of the message below)'],
} as const;

/** The GET /config `signing` section: the body → message rules per primary type, with a worked Order example. */
export function signingRules(): {
  Order: { rules: readonly string[]; example: { body: typeof EXAMPLE_ORDER_BODY; message: OrderMessage } };
  Transfer: string;
  MarginUpdate: string;
  Delegation: string;
  onInvalidSignature: string;
} {
  const message = orderMessage(EXAMPLE_ORDER_BODY as unknown as OrderRequest);
  if (!message.ok) throw new Error('the published order example does not map to a message');
  const asSent = (type: PrimaryType) => `the body's fields named in types.${type}, exactly as sent (signatures aside)`;
  return {
    Order: { rules: ORDER_SIGNING_RULES, example: { body: EXAMPLE_ORDER_BODY, message: message.value } },
    Transfer: asSent('Transfer'),
    MarginUpdate: asSent('MarginUpdate'),
    Delegation: asSent('Delegation'),
    onInvalidSignature:
      'a 400 Invalid signature carries X-Signed-Message (the message the server hashed, compact JSON) and, when the signature recovers to an address at all, X-Signature-Recovered (that address): compare them with what you signed and with whom you signed as',
  };
}

/**
 * The message the server hashed for `primaryType`, as compact JSON: only the type's fields, in
 * its order, bigints as decimal strings, every character outside ASCII escaped (`\uXXXX`) so it
 * fits an HTTP header. Built when a signature is refused, never on the accepted path.
 */
export function signedMessageJson(primaryType: PrimaryType, message: Readonly<Record<string, unknown>>): string {
  const fields = Object.fromEntries(TYPES[primaryType].map((f) => [f.name, message[f.name]]));
  return JSON.stringify(fields, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function eip712Domain(profile: Profile): Eip712Domain {
  return {
    name: profile.domainName,
    version: profile.domainVersion,
    chainId: profile.chainId,
    verifyingContract: profile.verifyingContract,
  };
}

/** The `GET /config` signing section: pass `domain`, `types` and a primary type to a wallet. */
export function publishedTypedData(profile: Profile): {
  domain: Eip712Domain;
  types: typeof TYPES;
  primaryTypes: typeof PRIMARY_TYPES;
} {
  return { domain: eip712Domain(profile), types: TYPES, primaryTypes: PRIMARY_TYPES };
}

function encodeTypeString(name: string, fields: readonly TypedField[]): string {
  return `${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`;
}

const utf8 = new TextEncoder();
/** `uint8` … `uint256` → its width in bits. */
const UINT_BITS = new Map(Array.from({ length: 32 }, (_, i) => [`uint${(i + 1) * 8}`, (i + 1) * 8]));
const TYPE_HASH = new Map<string, Uint8Array>(
  [['EIP712Domain', DOMAIN_TYPE] as const, ...Object.entries(TYPES)].map(([name, fields]) => [
    name,
    keccak256(utf8.encode(encodeTypeString(name, fields))),
  ]),
);

/**
 * keccak of a string field's UTF-8, remembered for the strings orders repeat (a symbol, an order
 * type, the empty clientId, triggerPrice and parentOrderId, a market maker's prices): nine of an
 * Order's eighteen fields are strings, each a hash. Bounded: emptied when full, and a string
 * longer than `MAX_REMEMBERED_LENGTH` is hashed each time. The digests are never handed out, only
 * copied into the struct's encoding.
 */
const stringHashes = new Map<string, Uint8Array>();
const MAX_REMEMBERED_STRINGS = 4096;
const MAX_REMEMBERED_LENGTH = 64;
function stringHash(text: string): Uint8Array {
  let hash = stringHashes.get(text);
  if (hash === undefined) {
    hash = keccak256(utf8.encode(text));
    if (text.length <= MAX_REMEMBERED_LENGTH) {
      if (stringHashes.size >= MAX_REMEMBERED_STRINGS) stringHashes.clear();
      stringHashes.set(text, hash);
    }
  }
  return hash;
}

/** Writes one field's 32-byte encoding at `word`; false when the value does not fit its type. */
function encodeField(type: string, value: unknown, out: Uint8Array, word: number): boolean {
  const at = word * 32;
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return false;
      out.set(stringHash(value), at);
      return true;
    case 'bool':
      if (typeof value !== 'boolean') return false;
      out[at + 31] = value ? 1 : 0;
      return true;
    case 'address': {
      const address = toAddress(value);
      return address !== undefined && hexInto(address.slice(2), out, at + 12);
    }
    default: {
      const bits = UINT_BITS.get(type) ?? NaN;
      if (!(bits >= 8 && bits <= 256 && bits % 8 === 0)) throw new Error(`unsupported EIP-712 type ${type}`);
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && (bits >= 53 || value < 2 ** bits)) {
        // The common case (JSON numbers): big-endian bytes by division, no bigint per byte.
        for (let i = at + 31, n = value; n > 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
        return true;
      }
      let v: bigint;
      if (typeof value === 'bigint') v = value;
      else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
      else return false;
      if (v < 0n || v >> BigInt(bits) !== 0n) return false;
      for (let i = at + 31; v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
      return true;
    }
  }
}

function hashStruct(typeName: string, fields: readonly TypedField[], message: Readonly<Record<string, unknown>>): AuthResult<Uint8Array> {
  const encoded = new Uint8Array(32 * (fields.length + 1));
  encoded.set(TYPE_HASH.get(typeName)!, 0);
  for (let i = 0; i < fields.length; i++) {
    if (!encodeField(fields[i].type, message[fields[i].name], encoded, i + 1)) return refused(AuthCode.InvalidField, { field: fields[i].name });
  }
  return accepted(keccak256(encoded));
}

const separators = new Map<string, Uint8Array>();

/** keccak(encodeData(EIP712Domain, domain)), cached by the domain's values. */
export function domainSeparator(domain: Eip712Domain): Uint8Array {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`;
  let separator = separators.get(key);
  if (separator === undefined) {
    const hashed = hashStruct('EIP712Domain', DOMAIN_TYPE, domain as unknown as Record<string, unknown>);
    if (!hashed.ok) throw new Error(`invalid EIP-712 domain: ${hashed.params?.field}`);
    separator = hashed.value;
    if (separators.size >= 16) separators.clear(); // a handful of profiles in practice; bound it anyway
    separators.set(key, separator);
  }
  return separator;
}

/**
 * The 32-byte EIP-712 digest a wallet signs for `message` as `primaryType` under `domain`
 * (equal to viem `hashTypedData` and ethers `TypedDataEncoder.hash`). A field that does not
 * fit its type is refused with `InvalidField` naming it.
 */
export function typedDataDigest<T extends PrimaryType>(domain: Eip712Domain, primaryType: T, message: MessageOf[T]): AuthResult<Uint8Array> {
  const struct = hashStruct(primaryType, TYPES[primaryType], message as unknown as Record<string, unknown>);
  if (!struct.ok) return struct;
  const payload = new Uint8Array(66);
  payload[0] = 0x19;
  payload[1] = 0x01;
  payload.set(domainSeparator(domain), 2);
  payload.set(struct.value, 34);
  return accepted(keccak256(payload));
}
