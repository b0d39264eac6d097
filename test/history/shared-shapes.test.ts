/**
 * History format 4 keeps each projection database's value shapes once, in the database
 * (history/history-env `projectionDatabase`): a shape first written in a batch is saved in that
 * batch's transaction. Here batches abort after new shapes — once while the shared list is short,
 * once after it is full (msgpackr shares at most 32; the rest travel inline) — and later batches
 * write the same and new shapes; every value written by a committed batch reads back equal, on
 * the writer's own handle and in another thread that opens the environment afresh (as the
 * gateway's reader and a resuming feed do). Without `forgetUncommittedShapes` a shape saved by
 * an aborted batch is reused by the next and its values no longer decode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { openTempHistory } from './temp-store.ts';
import { HISTORY_ENV_OPTIONS } from '../../src/history/history-env.ts';

/** A value of its own shape: `n` fields named after `i`. */
const shapeNo = (i: number, n = 3) => Object.fromEntries(Array.from({ length: n }, (_, j) => [`f${i}_${j}`, i * 100 + j]));

/** Every entry of `name` at `path`, read by a new environment in a worker thread. */
function readInAnotherThread(path: string, name: string): Promise<Record<string, unknown>> {
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { open } = require('lmdb');
    const env = open({ path: workerData.path, ...workerData.options, readOnly: true });
    const db = env.openDB({ name: workerData.name, sharedStructuresKey: Symbol.for('structures') });
    const out = {};
    for (const { key, value } of db.getRange()) if (typeof key !== 'symbol') out[key] = value;
    parentPort.postMessage(out);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { path, name, options: HISTORY_ENV_OPTIONS } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

test('values of batches that committed read back equal after batches that aborted with new shapes, in this thread and another', async () => {
  const h = openTempHistory();
  const put = (id: number, value: object) => h.dbs.orders.putSync(id, value as never);
  const want: Record<number, unknown> = {};
  const committed = (id: number, value: object) => {
    put(id, value);
    want[id] = value;
  };
  h.write(() => {
    committed(1, shapeNo(1));
    committed(2, shapeNo(2));
  });
  assert.throws(() => h.write(() => {
    put(3, shapeNo(3));
    put(4, shapeNo(4));
    throw new Error('journal write failed');
  }), /journal write failed/);
  h.write(() => committed(7, shapeNo(3)));
  h.write(() => {
    committed(5, shapeNo(5));
    committed(6, shapeNo(1));
  });
  for (let i = 10; i < 60; i++) h.write(() => committed(i, shapeNo(i)));
  assert.throws(() => h.write(() => {
    put(200, shapeNo(200));
    throw new Error('journal write failed');
  }), /journal write failed/);
  for (let i = 60; i < 70; i++) h.write(() => committed(i, shapeNo(i)));
  h.write(() => committed(300, shapeNo(2)));

  for (const [id, value] of Object.entries(want)) assert.deepEqual(h.dbs.orders.get(Number(id)), value, `order ${id}, this thread`);
  const path = (h.root as unknown as { path: string }).path;
  const read = await readInAnotherThread(path, 'history.orders');
  assert.deepEqual(Object.keys(read).map(Number).sort((a, b) => a - b), Object.keys(want).map(Number).sort((a, b) => a - b), 'nothing of the aborted batches');
  for (const [id, value] of Object.entries(want)) assert.deepEqual(read[id], value, `order ${id}, another thread`);
});
