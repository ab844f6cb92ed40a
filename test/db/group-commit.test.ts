// Group commit (src/db/group-commit.ts): writes that arrive while a batch is being written go
// together in the next one; each caller's promise settles with its own batch.
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/db/group-commit.ts';

/** A write whose batches are recorded and which finishes only when released. */
function heldWrites() {
  const batches: number[][] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      pending.push({ resolve, reject });
    });
  const turn = () => new Promise<void>((r) => setImmediate(r));
  return { batches, pending, write, turn };
}

describe('group commit', () => {
  it('writes what arrives during a batch as one next batch, and settles each caller with its own batch', async () => {
    const w = heldWrites();
    const group = new GroupCommit<number>(w.write);
    const settled: number[] = [];
    const first = [1, 2, 3].map((n) => group.add(n).then(() => settled.push(n)));
    await w.turn();
    expect(w.batches).toEqual([[1, 2, 3]]);
    // while the first batch is written, five more arrive: none is written yet
    const second = [4, 5, 6, 7, 8].map((n) => group.add(n).then(() => settled.push(n)));
    await w.turn();
    expect(w.batches).toHaveLength(1);
    w.pending[0]!.resolve();
    await Promise.all(first);
    expect(settled).toEqual([1, 2, 3]);
    await w.turn();
    expect(w.batches).toEqual([[1, 2, 3], [4, 5, 6, 7, 8]]);
    w.pending[1]!.resolve();
    await Promise.all(second);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('rejects the callers of a batch that fails, and goes on with the next', async () => {
    const w = heldWrites();
    const group = new GroupCommit<number>(w.write);
    const a = group.add(1);
    await w.turn();
    const b = group.add(2);
    w.pending[0]!.reject(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await w.turn();
    expect(w.batches).toEqual([[1], [2]]);
    w.pending[1]!.resolve();
    await expect(b).resolves.toBeUndefined();
  });

  it('never writes more than its batch size at once', async () => {
    const w = heldWrites();
    const group = new GroupCommit<number>(w.write, { maxBatch: 4 });
    const all = Array.from({ length: 10 }, (_, n) => group.add(n));
    for (let i = 0; i < 3; i++) {
      await w.turn();
      w.pending[i]!.resolve();
    }
    await Promise.all(all);
    expect(w.batches).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
  });

  it('answers each caller its own result, and keeps one that may not join for the next batch, in its place', async () => {
    const batches: number[][] = [];
    // an even and an odd number never share a batch; each caller is answered its number doubled
    const group = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((n) => n * 2);
      },
      { joins: (n, batch) => batch.every((b) => b % 2 === n % 2) },
    );
    const answers = await Promise.all([2, 4, 5, 6, 7].map((n) => group.add(n)));
    expect(answers).toEqual([4, 8, 10, 12, 14]);
    expect(batches).toEqual([[2, 4, 6], [5, 7]]);
  });
});
