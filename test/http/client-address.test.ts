import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientAddress } from '../../src/http/client-address.ts';
import { canonicalIp } from '../../src/config/ip-address.ts';

const LOAD_BALANCER = '10.0.0.2';
const EDGE_PROXY = '10.0.0.3';
const TRUSTED = new Set([LOAD_BALANCER, EDGE_PROXY]);

test('without trusted proxies the socket peer is the client, whatever X-Forwarded-For says', () => {
  assert.equal(clientAddress('203.0.113.7', '198.51.100.1', new Set()), '203.0.113.7');
  assert.equal(clientAddress('203.0.113.7', '198.51.100.1', TRUSTED), '203.0.113.7', 'an untrusted peer cannot forward');
});

test('behind trusted proxies the client is the rightmost address that is not one of them', () => {
  assert.equal(clientAddress(LOAD_BALANCER, '198.51.100.1', TRUSTED), '198.51.100.1');
  assert.equal(clientAddress(LOAD_BALANCER, `198.51.100.1, ${EDGE_PROXY}`, TRUSTED), '198.51.100.1');
  assert.equal(clientAddress(LOAD_BALANCER, `6.6.6.6, 198.51.100.1`, TRUSTED), '198.51.100.1', 'what the client wrote on the left is not believed');
  assert.equal(clientAddress(LOAD_BALANCER, '', TRUSTED), LOAD_BALANCER, 'no header: the proxy itself');
  assert.equal(clientAddress(LOAD_BALANCER, `junk, ${EDGE_PROXY}`, TRUSTED), EDGE_PROXY, 'a malformed hop stops the walk at the last vouched address');
  assert.equal(clientAddress(LOAD_BALANCER, '::ffff:198.51.100.1', TRUSTED), '198.51.100.1');
});

test('addresses are compared in one canonical form', () => {
  assert.equal(canonicalIp('0000:0000:0000:0000:0000:0000:0000:0001'), '::1', 'the long form uWebSockets.js reports');
  assert.equal(canonicalIp('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
  assert.equal(canonicalIp('2001:DB8::1'), '2001:db8::1');
  assert.equal(canonicalIp('127.0.0.1'), '127.0.0.1');
  assert.equal(canonicalIp('1.2.3'), undefined);
  assert.equal(canonicalIp('localhost'), undefined);
});
