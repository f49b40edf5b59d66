import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGroupCommit } from './group-commit.ts';

interface Item {
  key: string;
  value: number;
}

function recorder(fail: (batch: readonly Item[]) => boolean = () => false) {
  const batches: number[][] = [];
  const commit = createGroupCommit<Item, number>({
    maxBatch: 3,
    keyOf: (item) => item.key,
    write: async (batch) => {
      batches.push(batch.map((item) => item.value));
      if (fail(batch)) throw new Error(`batch of ${batch.map((item) => item.value).join(',')} failed`);
      return batch.map((item) => item.value * 10);
    },
  });
  return { batches, commit };
}

test('requests of one event-loop turn go in one batch, bounded by maxBatch; each gets its own result', async () => {
  const { batches, commit } = recorder();
  const results = await Promise.all([1, 2, 3, 4, 5].map((value) => commit.submit({ key: `k${value}`, value })));
  assert.deepEqual(results, [10, 20, 30, 40, 50]);
  assert.deepEqual(batches, [
    [1, 2, 3],
    [4, 5],
  ]);
});

test('items of one key never share a batch and keep their order', async () => {
  const { batches, commit } = recorder();
  await Promise.all([
    commit.submit({ key: 'a', value: 1 }),
    commit.submit({ key: 'a', value: 2 }),
    commit.submit({ key: 'b', value: 3 }),
    commit.submit({ key: 'a', value: 4 }),
  ]);
  assert.deepEqual(batches, [[1, 3], [2], [4]]);
});

test('a failing batch is written again one item at a time: only the bad item fails', async () => {
  const { batches, commit } = recorder((batch) => batch.some((item) => item.value === 2));
  const settled = await Promise.allSettled([1, 2, 3].map((value) => commit.submit({ key: `k${value}`, value })));
  assert.deepEqual(
    settled.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
    [10, 'batch of 2 failed', 30],
  );
  assert.deepEqual(batches, [[1, 2, 3], [1], [2], [3]]);
});

test('a request that comes while a batch is being written goes in the next one', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const batches: number[][] = [];
  const commit = createGroupCommit<Item, number>({
    maxBatch: 10,
    keyOf: (item) => item.key,
    write: async (batch) => {
      batches.push(batch.map((item) => item.value));
      if (batches.length === 1) await gate;
      return batch.map((item) => item.value);
    },
  });
  const first = commit.submit({ key: 'a', value: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  const later = [commit.submit({ key: 'b', value: 2 }), commit.submit({ key: 'c', value: 3 })];
  release();
  assert.deepEqual(await Promise.all([first, ...later]), [1, 2, 3]);
  assert.deepEqual(batches, [[1], [2, 3]]);
});

test('with room for several batches, a key being written waits for its batch to commit', async () => {
  const gates: (() => void)[] = [];
  const batches: number[][] = [];
  const commit = createGroupCommit<Item, number>({
    maxBatch: 10,
    concurrency: 2,
    keyOf: (item) => item.key,
    write: async (batch) => {
      batches.push(batch.map((item) => item.value));
      await new Promise<void>((resolve) => gates.push(resolve));
      return batch.map((item) => item.value);
    },
  });
  const first = commit.submit({ key: 'a', value: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  const second = commit.submit({ key: 'a', value: 2 });
  const third = commit.submit({ key: 'b', value: 3 });
  await new Promise((resolve) => setImmediate(resolve));
  // `b` starts beside the first batch; `a` again only after the first batch is done.
  assert.deepEqual(batches, [[1], [3]]);
  gates.shift()?.();
  await first;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(batches, [[1], [3], [2]]);
  for (const gate of gates) gate();
  gates.length = 0;
  await new Promise((resolve) => setImmediate(resolve));
  for (const gate of gates) gate();
  assert.deepEqual(await Promise.all([second, third]), [2, 3]);
});

test('items of different classes never share a batch; the first waiting item decides the next class', async () => {
  const batches: string[] = [];
  const commit = createGroupCommit<Item, number>({
    maxBatch: 10,
    keyOf: (item) => item.key,
    classOf: (item) => (item.value % 2 === 0 ? 'even' : 'odd'),
    write: async (batch, itemClass) => {
      batches.push(`${itemClass}:${batch.map((item) => item.value).join(',')}`);
      return batch.map((item) => item.value);
    },
  });
  await Promise.all([1, 2, 3, 4, 5].map((value) => commit.submit({ key: `k${value}`, value })));
  assert.deepEqual(batches, ['odd:1,3,5', 'even:2,4']);
});
