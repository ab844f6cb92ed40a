// Group commit for a worker's many small writes of the same kind (a webhook attempt's outcome): the
// writes that arrive while one batch is being written go together in the next, so N concurrent
// writers cost about one statement per round trip instead of N. Each caller's promise settles with
// its own batch: resolved once that batch is written, rejected with its error (the caller decides
// whether to add the same write again).
export class GroupCommit<T> {
  private queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing = false;

  constructor(
    /** writes one batch, all or nothing */
    private readonly write: (items: T[]) => Promise<void>,
    /** the most items one batch takes */
    private readonly maxBatch = 1000,
  ) {}

  /** Adds `item` to the next batch; resolves when the batch holding it is written. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.write(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.writing = false;
  }
}
