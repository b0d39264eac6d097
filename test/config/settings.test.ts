import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { loadSettings } from '../../src/config/process.ts';
import { ConfigError } from '../../src/config/market.ts';

test('defaults: port 8080, ./data, testnet, demo markets', () => {
  const s = loadSettings([], {});
  assert.equal(s.port, 8080);
  assert.equal(s.dataDir, './data');
  assert.equal(s.profile.name, 'testnet');
  assert.equal(s.marketThreads, 2);
  assert.equal(s.signatureThreads, Math.max(1, availableParallelism() - 1), 'every core but the main thread’s');
  assert.equal(s.snapshotIntervalMs, 60_000);
  assert.deepEqual(s.markets.map((m) => m.symbol), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP']);
});

test('flags win over the environment', () => {
  const s = loadSettings(['--port', '9000', '--data-dir', '/tmp/x'], { PORT: '7000', DATA_DIR: '/tmp/y' });
  assert.equal(s.port, 9000);
  assert.equal(s.dataDir, '/tmp/x');
  assert.equal(loadSettings([], { PORT: '7000' }).port, 7000);
});

test('bad settings name the setting and the value', () => {
  assert.throws(() => loadSettings([], { PORT: 'eighty' }), (e: unknown) => e instanceof ConfigError && e.message === 'PORT: must be an integer from 0 to 65535, got "eighty"');
  assert.throws(() => loadSettings(['--profile', 'staging'], {}), /^ConfigError: PROFILE: must be "testnet" or "mainnet", got "staging"$/);
  assert.throws(() => loadSettings([], { MARKETS: '/nonexistent.json' }), /^ConfigError: MARKETS: must name a readable JSON file/);
  assert.throws(() => loadSettings(['--profile', 'mainnet'], {}), /OPERATOR_KEY: must be set/);
  assert.throws(() => loadSettings(['--bogus'], {}), /Unknown option '--bogus'/);
  assert.throws(() => loadSettings([], { MARKET_THREADS: '0' }), /^ConfigError: MARKET_THREADS: must be an integer from 1 to 256, got "0"$/);
  assert.throws(() => loadSettings(['--signature-threads', 'all'], {}), /^ConfigError: SIGNATURE_THREADS: must be an integer from 1 to 256, got "all"$/);
  assert.equal(loadSettings([], { SIGNATURE_THREADS: '3' }).signatureThreads, 3);
  assert.throws(() => loadSettings([], { SNAPSHOT_INTERVAL_MS: '1e3' }), /^ConfigError: SNAPSHOT_INTERVAL_MS: must be an integer number of milliseconds/);
});

test('TRUSTED_PROXIES: a comma-separated list of IP addresses, kept in canonical form; anything else stops the start', () => {
  assert.deepEqual(loadSettings([], {}).trustedProxies, []);
  assert.deepEqual(loadSettings([], { TRUSTED_PROXIES: '10.0.0.2, 0:0:0:0:0:0:0:1' }).trustedProxies, ['10.0.0.2', '::1']);
  assert.throws(
    () => loadSettings(['--trusted-proxies', '10.0.0.2,lb.internal'], {}),
    (e: unknown) => e instanceof ConfigError && e.message === 'TRUSTED_PROXIES: must be a comma-separated list of IP addresses, got "lb.internal"',
  );
});

test('OPERATOR_KEY on mainnet: 32 characters or more and not the published testnet key; testnet keeps its default', () => {
  const strong = 'k'.repeat(32);
  assert.equal(loadSettings(['--profile', 'mainnet'], { OPERATOR_KEY: strong }).operatorKey, strong);
  for (const weak of ['12345678', 'testnet-operator-key', 'k'.repeat(31)]) {
    assert.throws(() => loadSettings(['--profile', 'mainnet'], { OPERATOR_KEY: weak }), (e: unknown) => e instanceof ConfigError && e.message.startsWith('OPERATOR_KEY: must be a secret of 32 characters or more on mainnet') && !e.message.includes(weak));
  }
  assert.equal(loadSettings([], {}).operatorKey, 'testnet-operator-key');
});

test('MIN_TRANSFER (USD, default 1) and MAX_SUBACCOUNTS (default 32): the account limits', () => {
  const s = loadSettings([], {});
  assert.equal(s.minTransfer, 1_000_000n);
  assert.equal(s.maxSubaccounts, 32);
  assert.equal(loadSettings(['--min-transfer', '0.5'], { MIN_TRANSFER: '3' }).minTransfer, 500_000n);
  assert.equal(loadSettings([], { MAX_SUBACCOUNTS: '8' }).maxSubaccounts, 8);
  for (const bad of ['0', '-1', '0.0000001', '1e3', 'one']) {
    assert.throws(() => loadSettings([], { MIN_TRANSFER: bad }), (e: unknown) => e instanceof ConfigError && e.message === `MIN_TRANSFER: must be a positive USD amount with at most 6 decimals, got ${JSON.stringify(bad)}`);
  }
  assert.throws(() => loadSettings([], { MAX_SUBACCOUNTS: '0' }), /^ConfigError: MAX_SUBACCOUNTS: must be an integer from 1 to 10000, got "0"$/);
});

test('ACCESS_LOG / --access-log: off by default, on with the flag or a yes-word; another word stops the start', () => {
  assert.equal(loadSettings([], {}).accessLog, false);
  assert.equal(loadSettings(['--access-log'], {}).accessLog, true);
  for (const on of ['on', '1', 'true', 'yes']) assert.equal(loadSettings([], { ACCESS_LOG: on }).accessLog, true, on);
  for (const off of ['off', '0', 'false', 'no']) assert.equal(loadSettings([], { ACCESS_LOG: off }).accessLog, false, off);
  assert.throws(() => loadSettings([], { ACCESS_LOG: 'loud' }), /^ConfigError: ACCESS_LOG: must be on or off \(1\/0, true\/false\), got "loud"$/);
});

test('HOST: loopback by default on testnet (its operator key is published), every interface on mainnet; --host wins', () => {
  assert.equal(loadSettings([], {}).host, '127.0.0.1');
  assert.equal(loadSettings(['--host', '0.0.0.0'], {}).host, '0.0.0.0');
  assert.equal(loadSettings([], { HOST: '::' }).host, '::');
  const mainnet = { PROFILE: 'mainnet', OPERATOR_KEY: 'k'.repeat(32), JWT_SECRET: 's'.repeat(32) };
  assert.equal(loadSettings([], mainnet).host, '0.0.0.0');
});

test('OPERATOR_PORT / --operator-port: absent by default; a port, not the public one', () => {
  assert.equal(loadSettings([], {}).operatorPort, null);
  assert.equal(loadSettings(['--operator-port', '9090'], {}).operatorPort, 9090);
  assert.equal(loadSettings([], { OPERATOR_PORT: '0' }).operatorPort, 0);
  assert.throws(() => loadSettings(['--operator-port', 'nine'], {}), /^ConfigError: OPERATOR_PORT: must be an integer from 0 to 65535, got "nine"$/);
  assert.throws(() => loadSettings(['--port', '9000', '--operator-port', '9000'], {}), /^ConfigError: OPERATOR_PORT: must differ from PORT, got "9000"$/);
});
