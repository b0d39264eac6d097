/**
 * The in-process injector finds a route as the listener does only while no path matches two
 * routes of one method: the gateway's routes overlap nowhere, and a pair that would is named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlapping } from './inject.ts';

test('two patterns one path could match are named; distinct ones, or other methods, are not', () => {
  assert.deepEqual(overlapping([{ method: 'get', pattern: '/trades/:symbol' }, { method: 'get', pattern: '/trades/latest' }]), ['GET /trades/:symbol / /trades/latest']);
  assert.deepEqual(overlapping([{ method: 'get', pattern: '/book/:symbol' }, { method: 'get', pattern: '/book/:symbol/depth' }]), []);
  assert.deepEqual(overlapping([{ method: 'get', pattern: '/account/order' }, { method: 'post', pattern: '/account/order' }]), []);
});
