/** Wallet libraries sign each action with the published types; the server recovers the signer; any changed field breaks it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recoverRequestSigner } from '../../src/auth/signed-request.ts';
import { workerRecovery } from '../harness/worker-recovery.ts';
import { TYPES, type MessageOf, type PrimaryType } from '../../src/auth/typed-data.ts';
import {
  ALICE, ALICE_BUY_5_AT_10_LIMIT, ALICE_DELEGATES_TRADE_READ_TO_BOB, ALICE_ETHERS, ALICE_ISOLATED_MARGIN_033,
  ALICE_TRANSFER_100_TO_BOB, ALICE_VIEM, BOB, signWithEthers, signWithViem, TESTNET_DOMAIN,
} from './fixtures.ts';

const recover = workerRecovery('noble');

const MESSAGES: { [T in PrimaryType]: MessageOf[T] } = {
  Order: ALICE_BUY_5_AT_10_LIMIT,
  Transfer: ALICE_TRANSFER_100_TO_BOB,
  MarginUpdate: ALICE_ISOLATED_MARGIN_033,
  Delegation: ALICE_DELEGATES_TRADE_READ_TO_BOB,
};

/** The same message with one field given another value of its type. */
function changed(message: object, field: string, type: string): object {
  const value = (message as Record<string, unknown>)[field];
  const other =
    type === 'bool' ? !value
    : type === 'address' ? (value === BOB ? ALICE : BOB)
    : type === 'string' ? `${String(value)}0`
    : Number(value) + 1;
  return { ...message, [field]: other };
}

for (const [library, sign] of [['viem', (t: PrimaryType, m: never) => signWithViem(ALICE_VIEM, t, m)], ['ethers', (t: PrimaryType, m: never) => signWithEthers(ALICE_ETHERS, t, m)]] as const) {
  for (const primaryType of Object.keys(MESSAGES) as PrimaryType[]) {
    test(`${library} signs a ${primaryType}; the server recovers Alice; each changed field recovers someone else`, async () => {
      const message = MESSAGES[primaryType];
      const signature = await sign(primaryType, message as never);
      assert.deepEqual(await recoverRequestSigner(recover, TESTNET_DOMAIN, primaryType, message, [signature]), { ok: true, value: ALICE });
      for (const field of TYPES[primaryType]) {
        const tampered = changed(message, field.name, field.type) as MessageOf[typeof primaryType];
        const result = await recoverRequestSigner(recover, TESTNET_DOMAIN, primaryType, tampered, [signature]);
        assert.ok(!result.ok || result.value !== ALICE, `${field.name} changed but Alice still recovered`);
      }
    });
  }
}

test('viem and ethers produce the same signature bytes for the same order (deterministic RFC 6979)', async () => {
  assert.equal(await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT), await signWithEthers(ALICE_ETHERS, 'Order', ALICE_BUY_5_AT_10_LIMIT));
});
