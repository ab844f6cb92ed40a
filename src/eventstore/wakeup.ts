// A wake-up signal for pollers: a hint that something may have changed, never a carrier of data.
// A ticket taken before a poll makes a wake that lands during the poll count, so none is lost.
export class Wakeup {
  private generation = 0;
  private waiters = new Set<() => void>();
  private closed = false;

  ticket(): number {
    return this.generation;
  }

  wake(): void {
    this.generation++;
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolves on the next wake after `ticket` was taken, or after `timeoutMs`. */
  wait(ticket: number, timeoutMs: number): Promise<void> {
    if (this.closed || ticket !== this.generation) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      this.waiters.add(done);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.wake();
  }
}
