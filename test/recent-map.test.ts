// RecentMap (src/recent-map.ts): the most recently set keys, at least `keep` and at most twice that.
import { describe, expect, it } from 'vitest';
import { RecentMap } from '../src/recent-map.ts';

describe('RecentMap', () => {
  it('keeps at least the last `keep` keys and never more than twice that', () => {
    const m = new RecentMap<number, string>(100);
    for (let i = 0; i < 1_000; i++) {
      m.set(i, `v${i}`);
      expect(m.size).toBeLessThanOrEqual(200);
      expect(m.size).toBeGreaterThanOrEqual(Math.min(i + 1, 100));
      // the last 100 set are all there, with their values
      for (let j = Math.max(0, i - 99); j <= i; j += 33) expect(m.get(j)).toBe(`v${j}`);
    }
    expect(m.has(0)).toBe(false);
    expect(m.get(0)).toBeUndefined();
  });

  it('counts a key set again as recent: it outlives keys set once after it', () => {
    const m = new RecentMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 1);
    m.set('c', 1); // 'a' and 'b' now the older generation
    m.set('a', 2); // 'a' moves to the newer one
    m.set('d', 1); // the newer ('c', 'a') is full: it becomes the older one, and 'b' is dropped
    expect(m.get('a')).toBe(2);
    expect(m.has('b')).toBe(false);
    expect([m.has('c'), m.has('d')]).toEqual([true, true]);
    expect(m.size).toBe(3);
  });

  it('deletes from either generation, and a falsy value is a value', () => {
    const m = new RecentMap<string, number>(1);
    m.set('old', 0);
    m.set('new', 0);
    expect([m.get('old'), m.get('new')]).toEqual([0, 0]);
    expect(m.delete('old')).toBe(true);
    expect(m.delete('new')).toBe(true);
    expect(m.delete('new')).toBe(false);
    expect(m.size).toBe(0);
  });
});
