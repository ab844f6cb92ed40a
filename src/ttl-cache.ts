// A short-lived cache of look-ups (lru-cache, timed by the service's clock): what a look-up found is
// remembered for `ttlMs`; concurrent asks for one key share one look-up; a look-up that found nothing
// (undefined) or failed is not remembered, so the next ask looks again. The least recently used
// entries give way beyond `max`.
import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.ts';

type Lookup<V> = () => Promise<V | undefined>;

export class TtlCache<V extends {}> {
  private readonly cache: LRUCache<string, V, Lookup<V>>;

  constructor(options: { ttlMs: number; max: number; clock: Clock }) {
    this.cache = new LRUCache<string, V, Lookup<V>>({
      max: options.max,
      ttl: options.ttlMs,
      // ask the clock every time: a test's clock may jump
      ttlResolution: 0,
      perf: { now: () => options.clock.now().getTime() },
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  /** The value remembered for `key`, else what `lookup` finds (remembered unless undefined). */
  get(key: string, lookup: Lookup<V>): Promise<V | undefined> {
    return this.cache.fetch(key, { context: lookup });
  }
}
