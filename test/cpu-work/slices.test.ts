// A batch's per-row work in slices on the CPU work threads (src/cpu-work/pool.ts runSlices, README
// "The write path"): the rows' results in order, whether a slice ran on a thread or, when the
// threads could not take it, here.
import { afterEach, describe, expect, it } from 'vitest';
import { CpuWork } from '../../src/cpu-work/pool.ts';
import { validateSends } from '../../src/messages/validation.ts';

const now = new Date('2026-01-01T00:00:00Z');
const items = Array.from({ length: 23 }, (_, i) =>
  i % 5 === 3 ? { to: 'not a number', channel: 'sms', message: `m${i}` } : { to: `+1415555${String(1000 + i)}`, channel: 'sms', message: `m${i}` });
const here = (slice: unknown[]) => validateSends(slice, now);
const input = (slice: unknown[]) => ({ items: slice, now, allowPrivateWebhooks: false });

let pools: CpuWork[] = [];
const pool = (options: ConstructorParameters<typeof CpuWork>[0]) => {
  const p = new CpuWork(options);
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

describe('CpuWork.runSlices', () => {
  it('gives every row its result in order, slices done on the threads', async () => {
    const out = await pool({ threads: 2, timeoutMs: 30_000 }).runSlices('validateSends', items, 4, input, here);
    expect(out).toEqual(validateSends(items, now));
    expect(out.map((r) => r.ok)).toEqual(items.map((_, i) => i % 5 !== 3));
    // one parse gives the number and its country
    expect(out[0]).toMatchObject({ ok: true, value: { content: { to: '+14155551000' }, toCountry: 'US' } });
  });

  it('does here what the threads refuse (a full queue, a stopped pool), with the same results', async () => {
    const full = pool({ threads: 1, timeoutMs: 30_000, maxQueue: 1 });
    expect(await full.runSlices('validateSends', items, 2, input, here)).toEqual(validateSends(items, now));
    const stopped = pool({ threads: 1, timeoutMs: 30_000 });
    await stopped.close();
    expect(await stopped.runSlices('validateSends', items, 2, input, here)).toEqual(validateSends(items, now));
  });

  it('shares a request’s slices between the threads and this thread; a background batch stays on the threads', async () => {
    const work = pool({ threads: 1, timeoutMs: 30_000 });
    let doneHere = 0;
    const counted = (slice: unknown[]) => {
      doneHere++;
      return here(slice);
    };
    expect(await work.runSlices('validateSends', items, 4, input, counted)).toEqual(validateSends(items, now));
    expect(doneHere).toBeGreaterThan(0);
    doneHere = 0;
    expect(await work.runSlices('validateSends', items, 4, input, counted, 'background')).toEqual(validateSends(items, now));
    expect(doneHere).toBe(0);
  });

  it('gives a free thread the requests’ tasks before the background tasks that waited longer', async () => {
    const work = pool({ threads: 1, timeoutMs: 30_000 });
    const finished: string[] = [];
    const task = (name: string, priority: 'request' | 'background') =>
      work.run('validateSends', input(items), { priority }).then(() => {
        finished.push(name);
      });
    await Promise.all([task('background 1', 'background'), task('background 2', 'background'), task('request 1', 'request'), task('request 2', 'request')]);
    // the first background task had the thread already; the requests went before the second
    expect(finished).toEqual(['background 1', 'request 1', 'request 2', 'background 2']);
  });
});

describe('CpuWork time limit', () => {
  it("counts a task's own time, not the start of a fresh thread (a loaded host's slow start is not the input's fault)", async () => {
    // a fresh thread imports the tasks' modules first (here through tsx: hundreds of milliseconds);
    // a spam check of a short message takes a few
    const work = pool({ threads: 1, timeoutMs: 150 });
    const started = Date.now();
    const result = await work.run('spamCheck', { subject: 'Hello', text: 'A short note.', marketing: false });
    expect(result).toMatchObject({ score: expect.any(Number) });
    // (the start took longer than the limit: the test would prove nothing otherwise)
    expect(Date.now() - started).toBeGreaterThan(150);
    // a task that runs past the limit is still ended: the limit holds once the thread has started
    await expect(work.run('spamCheck', { subject: 'x', text: 'word '.repeat(5_000_000), marketing: false })).rejects.toMatchObject({ errorName: 'CpuTaskTimeout' });
  }, 60_000);

  it('ends a thread that does not start in time: its task answers 503, a batch does its slice here', async () => {
    // a thread's start (its modules imported) is bounded too: one that never became ready held its
    // task, and every task queued behind it, for ever. A 1 ms start limit no thread meets stands in
    // for a thread stuck in its start.
    const stuck = pool({ threads: 1, timeoutMs: 30_000, startMs: 1 });
    await expect(stuck.run('spamCheck', { subject: 'Hello', text: 'A short note.', marketing: false })).rejects.toMatchObject({ statusCode: 503, code: 'unavailable' });
    // a batch's slice on such a thread is done here instead, with the same results
    expect(await stuck.runSlices('validateSends', items, 4, input, here, 'background')).toEqual(validateSends(items, now));
  }, 60_000);
});
