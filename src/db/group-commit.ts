// Group commit: many small writes of the same kind (a webhook attempt's outcome, a single append, a
// claim, a data key) that arrive while one batch is being written go together in the next, so N
// concurrent writers cost about one statement and one commit per round trip instead of N. README
// "The write path".
export interface GroupCommitOptions<T> {
  /** the most items one batch takes */
  maxBatch?: number;
  /**
   * Whether `item` may join `batch` (a batch's first item always does); one that may not waits for
   * the next batch, keeping its place in the queue. Unset: every item joins while there is room.
   */
  joins?: (item: T, batch: readonly T[]) => boolean;
}

/** One GroupCommit per pool (or other owner), made by `make` on its first use. */
export function perPool<P extends object, T, R>(make: (pool: P) => GroupCommit<T, R>): (pool: P) => GroupCommit<T, R> {
  const made = new WeakMap<P, GroupCommit<T, R>>();
  return (pool) => {
    let group = made.get(pool);
    if (!group) made.set(pool, (group = make(pool)));
    return group;
  };
}

/**
 * Each caller's promise settles with its own batch: resolved with its own result once the batch is
 * written (what `write` answered at its index; undefined when it answers nothing), rejected with the
 * batch's error when the write fails (the caller decides whether to add the same write again).
 */
export class GroupCommit<T, R = void> {
  private queue: { item: T; resolve: (result: R) => void; reject: (err: unknown) => void }[] = [];
  private writing = false;
  private readonly maxBatch: number;
  private readonly joins?: (item: T, batch: readonly T[]) => boolean;

  constructor(
    /** writes one batch, all or nothing; may answer one result per item, in order */
    private readonly write: (items: T[]) => Promise<R[] | void>,
    options: GroupCommitOptions<T> = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1000;
    this.joins = options.joins;
  }

  /** Adds `item` to the next batch; settles when the batch holding it is written. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        // after the current turn: the other writers settling in this one join the batch
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.take();
      try {
        const results = await this.write(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results ? results[i]! : (undefined as R)));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.writing = false;
  }

  /** The next batch: the queue's items in order, as many as fit and may join; the others stay queued. */
  private take() {
    if (!this.joins) return this.queue.splice(0, this.maxBatch);
    const batch: typeof this.queue = [];
    const items: T[] = [];
    const later: typeof this.queue = [];
    for (const q of this.queue) {
      if (batch.length < this.maxBatch && (batch.length === 0 || this.joins(q.item, items))) {
        batch.push(q);
        items.push(q.item);
      } else later.push(q);
    }
    this.queue = later;
    return batch;
  }
}
