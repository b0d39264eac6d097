import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettings } from '../../src/config/process.ts';

test('without --nats the exchange is the embedded single process: primary, local durability, no NATS', () => {
  const { replication } = loadSettings([], {});
  assert.deepEqual(replication, { role: 'primary', natsUrls: [], durability: 'local', publicUrl: null, primaryUrl: null, natsReplicas: 1, leaseMs: 3000 });
});

test('replication flags win over the environment', () => {
  const { replication } = loadSettings(['--role', 'standby', '--nats', 'nats://a:4222, nats://b:4222', '--durability', 'replicated', '--primary-url', 'http://p:8080/'], { ROLE: 'replica', NATS_URLS: 'nats://c:4222', NATS_REPLICAS: '3', LEASE_MS: '5000' });
  assert.equal(replication.role, 'standby');
  assert.deepEqual(replication.natsUrls, ['nats://a:4222', 'nats://b:4222']);
  assert.equal(replication.durability, 'replicated');
  assert.equal(replication.primaryUrl, 'http://p:8080');
  assert.equal(replication.natsReplicas, 3);
  assert.equal(replication.leaseMs, 5000);
});

test('bad replication settings name the setting and the value', () => {
  assert.throws(() => loadSettings(['--role', 'leader'], {}), /^ConfigError: ROLE: must be "primary", "replica" or "standby", got "leader"$/);
  assert.throws(() => loadSettings(['--role', 'replica'], {}), /^ConfigError: NATS_URLS: must name the NATS servers for --role replica/);
  assert.throws(() => loadSettings(['--durability', 'replicated'], {}), /^ConfigError: DURABILITY: needs --nats/);
  assert.throws(() => loadSettings(['--durability', 'quorum', '--nats', 'nats://a:4222'], {}), /^ConfigError: DURABILITY: must be "local" or "replicated", got "quorum"$/);
  assert.throws(() => loadSettings(['--nats', 'http://a:4222'], {}), /^ConfigError: NATS_URLS: must be a comma-separated list of nats:\/\/host:port URLs, got "http:\/\/a:4222"$/);
  assert.throws(() => loadSettings(['--lease-ms', '100'], {}), /^ConfigError: LEASE_MS: must be an integer number of milliseconds, 300 or more, got "100"$/);
  assert.throws(() => loadSettings(['--primary-url', 'p:8080'], {}), /^ConfigError: PRIMARY_URL: must be an http:\/\/ or https:\/\/ URL/);
});
