import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { CommandKind } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import { NO_ROUTER } from '../../src/app/ports.ts';
import { decodeSnapshot, encodeSnapshot, type SystemSnapshot } from '../../src/sequencer/snapshot-codec.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

function someState(): SystemSnapshot {
  const exchange = new Exchange(markets, NO_ROUTER, {}, { ledger: { faucet: true } });
  for (let i = 1; i <= 50; i++) {
    exchange.execute({ kind: CommandKind.Faucet, time: 1_000 + i, account: `0x${i.toString(16).padStart(40, '0')}`, subaccountIndex: i % 3, amount: BigInt(i) * 1_000_000n });
  }
  return { exchange: exchange.snapshot(), books: [], hashes: exchange.stateHashes() };
}

test('a snapshot is stored compressed and restores to the state hash it was taken with', () => {
  const state = someState();
  const bytes = encodeSnapshot(state);
  assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b], 'gzip');
  const restored = new Exchange(markets, NO_ROUTER, {}, { ledger: { faucet: true } }, decodeSnapshot(bytes).exchange);
  assert.deepEqual(restored.stateHashes(), state.hashes);
});

test('a snapshot written before compression (plain JSON) still loads', () => {
  const state = someState();
  const plain = new TextEncoder().encode(JSON.stringify(state, (_key, value) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value)));
  const restored = new Exchange(markets, NO_ROUTER, {}, { ledger: { faucet: true } }, decodeSnapshot(plain).exchange);
  assert.deepEqual(restored.stateHashes(), state.hashes);
});
