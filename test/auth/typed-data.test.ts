/** EIP-712 digest: equal to viem and ethers for every action and random field values; published shape. */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hashTypedData } from 'viem';
import { TypedDataEncoder } from 'ethers';
import { bytesToHex } from '../../src/auth/address.ts';
import { AuthCode } from '../../src/auth/codes.ts';
import { domainSeparator, eip712Domain, orderMessage, PRIMARY_TYPES, publishedTypedData, typedDataDigest, TYPES, type PrimaryType } from '../../src/auth/typed-data.ts';
import { ALICE, ALICE_BUY_5_AT_10_LIMIT, forViem, MAINNET, TESTNET, TESTNET_DOMAIN } from './fixtures.ts';
import { keccakReady } from '../../src/auth/keccak.ts';

// The digests below are computed with the WebAssembly keccak the exchange uses, not the fallback.
before(() => keccakReady);

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${bytesToHex(b)}`);
const text = fc.string({ unit: 'grapheme', maxLength: 24 });
// Strings orders repeat (remembered hashes), long ones (never remembered) and any others.
const field = fc.oneof(text, fc.constantFrom('', 'BTC-USD-PERP', 'limit', '41000.50'), fc.string({ unit: 'grapheme', minLength: 65, maxLength: 90 }));
const uint32 = fc.integer({ min: 0, max: 0xffffffff });
// As JSON numbers (what the gateway's messages hold) and as bigints (a library caller's).
const uint64 = fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.maxSafeNat());
const FIELD: Record<string, fc.Arbitrary<unknown>> = { address, string: field, uint32, uint64, bool: fc.boolean() };

function messageArbitrary(primaryType: PrimaryType): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(TYPES[primaryType].map((f) => [f.name, FIELD[f.type]])));
}

const domainArbitrary = fc.record({
  name: text,
  version: text,
  chainId: fc.integer({ min: 1, max: 2 ** 40 }),
  verifyingContract: address as fc.Arbitrary<`0x${string}`>,
});

for (const primaryType of Object.keys(TYPES) as PrimaryType[]) {
  test(`${primaryType} digest equals viem hashTypedData and ethers TypedDataEncoder.hash`, () => {
    fc.assert(
      fc.property(domainArbitrary, messageArbitrary(primaryType), (domain, message) => {
        const ours = typedDataDigest(domain, primaryType, message as never);
        assert.ok(ours.ok);
        const hex = `0x${bytesToHex(ours.value)}`;
        assert.equal(hex, hashTypedData({ domain, types: TYPES, primaryType, message: message as never }));
        assert.equal(hex, TypedDataEncoder.hash(domain, { [primaryType]: TYPES[primaryType].map((f) => ({ ...f })) }, message));
      }),
      { numRuns: 120 },
    );
  });
}

test('the published signing section is what viem takes verbatim, with one primary type per action', () => {
  const published = publishedTypedData(TESTNET);
  assert.deepEqual(published.domain, { name: 'PerpExchange', version: '1', chainId: 421614, verifyingContract: TESTNET.verifyingContract });
  assert.deepEqual(published.primaryTypes, { order: 'Order', transfer: 'Transfer', marginUpdate: 'MarginUpdate', delegation: 'Delegation' });
  const json = JSON.parse(JSON.stringify(published));
  const digest = typedDataDigest(TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT);
  assert.ok(digest.ok);
  assert.equal(hashTypedData({ domain: json.domain, types: json.types, primaryType: json.primaryTypes.order, message: forViem(ALICE_BUY_5_AT_10_LIMIT) }), `0x${bytesToHex(digest.value)}`);
  assert.deepEqual(Object.keys(json.types).sort(), Object.values(PRIMARY_TYPES).sort());
});

test('the same fields give different digests as an Order, under mainnet, or under another contract', () => {
  const margin = { account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', isolated: true, margin: '0.5', nonce: 1, expiresAt: 2, scopes: '', delegate: ALICE, action: 'add' as const };
  const asMargin = typedDataDigest(TESTNET_DOMAIN, 'MarginUpdate', margin);
  const asDelegation = typedDataDigest(TESTNET_DOMAIN, 'Delegation', margin);
  const onMainnet = typedDataDigest(eip712Domain(MAINNET), 'MarginUpdate', margin);
  const otherContract = typedDataDigest({ ...TESTNET_DOMAIN, verifyingContract: MAINNET.verifyingContract }, 'MarginUpdate', margin);
  const digests = [asMargin, asDelegation, onMainnet, otherContract].map((d) => (d.ok ? bytesToHex(d.value) : 'refused'));
  assert.equal(new Set(digests).size, 4);
  assert.notEqual(bytesToHex(domainSeparator(TESTNET_DOMAIN)), bytesToHex(domainSeparator({ ...TESTNET_DOMAIN, chainId: 1 })));
});

test('orderMessage maps null and absent optional fields to "" and 0 and spells orderType lowerCamel', () => {
  const mapped = orderMessage({
    account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', orderType: 'TakeProfit', price: '0.0001', quantity: '-1',
    nonce: 7, expiresAt: 9, flags: { ioc: true, postOnly: false, reduceOnly: true }, originator: ALICE, originatorFee: 0,
    clientId: null, triggerPrice: '95', parentOrderId: null, period: null,
  });
  assert.ok(mapped.ok);
  assert.equal(mapped.value.orderType, 'takeProfit');
  assert.deepEqual([mapped.value.clientId, mapped.value.parentOrderId, mapped.value.period, mapped.value.trailingPercent], ['', '', 0, '']);
  assert.deepEqual([mapped.value.ioc, mapped.value.postOnly, mapped.value.reduceOnly, mapped.value.triggerPrice], [true, false, true, '95']);
  const unknownType = orderMessage({ ...ALICE_BUY_5_AT_10_LIMIT, orderType: 'market', flags: { ioc: false, postOnly: false, reduceOnly: false } });
  assert.deepEqual(unknownType, { ok: false, code: AuthCode.InvalidField, params: { field: 'orderType' } });
});

test('a field that does not fit its signed type is refused by name', () => {
  const cases: Array<[string, unknown]> = [
    ['account', '0x1234'], ['subaccountIndex', 2 ** 32], ['subaccountIndex', -1], ['nonce', 1.5], ['nonce', 1n << 64n], ['nonce', -1], ['nonce', 2 ** 64],
    ['expiresAt', '5'], ['ioc', 1], ['price', 10], ['originator', null],
  ];
  for (const [field, value] of cases) {
    assert.deepEqual(typedDataDigest(TESTNET_DOMAIN, 'Order', { ...ALICE_BUY_5_AT_10_LIMIT, [field]: value }), { ok: false, code: AuthCode.InvalidField, params: { field } }, `${field} = ${String(value)}`);
  }
});
