// Rate-limit counters for `engage serve --processes N` without Redis: the primary process holds one
// MemoryCounters and every API child asks it over the cluster's IPC channel, so an account's limit
// is one budget across the processes, not one per process.
import type { Worker } from 'node:cluster';
import type { CounterStore } from './rate-limit.ts';

const MESSAGE = 'engage:counters';

type CounterAsk = { op: 'hit'; key: string; windowStart: number; windowMs: number } | { op: 'undo'; key: string; windowStart: number };
type CounterRequest = { type: typeof MESSAGE; id: number } & CounterAsk;

interface CounterReply {
  type: typeof MESSAGE;
  id: number;
  counts?: [number, number];
  error?: string;
}

/** The child's end of the IPC channel (`process` in a cluster child). */
export interface IpcChannel {
  send?(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * The primary answers in well under a millisecond; only a primary that is gone or wedged would not
 * (a gone one ends its children anyway). A request then fails instead of hanging.
 */
const ANSWER_TIMEOUT_MS = 5_000;

const isReply = (m: unknown): m is CounterReply => typeof m === 'object' && m !== null && (m as CounterReply).type === MESSAGE;

/** An API child's counters: each hit and undo is a round trip to the primary's counters. */
export class ClusterCounters implements CounterStore {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(counts?: [number, number]): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  private readonly onMessage = (m: unknown) => {
    if (!isReply(m)) return;
    const waiter = this.pending.get(m.id);
    if (!waiter) return;
    this.pending.delete(m.id);
    clearTimeout(waiter.timer);
    if (m.error !== undefined) waiter.reject(new Error(`rate-limit counters: ${m.error}`));
    else waiter.resolve(m.counts);
  };

  constructor(private readonly channel: IpcChannel = process) {
    if (!channel.send) throw new Error('ClusterCounters needs an IPC channel to the primary (a node:cluster child)');
    channel.on('message', this.onMessage);
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<[number, number]> {
    return (await this.ask({ op: 'hit', key, windowStart, windowMs }))!;
  }

  async undo(key: string, windowStart: number): Promise<void> {
    await this.ask({ op: 'undo', key, windowStart });
  }

  async close(): Promise<void> {
    this.channel.off('message', this.onMessage);
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('rate-limit counters closed'));
      this.pending.delete(id);
    }
  }

  private ask(request: CounterAsk): Promise<[number, number] | undefined> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`rate-limit counters: the primary process did not answer within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.channel.send!({ type: MESSAGE, id, ...request });
      } catch (err) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }
}

/** The primary's end: answers one child's counter requests from the primary's one store (a MemoryCounters). */
export function answerCounterRequests(worker: Worker, counters: CounterStore): void {
  worker.on('message', (m: unknown) => {
    if (typeof m !== 'object' || m === null || (m as CounterRequest).type !== MESSAGE) return;
    const request = m as CounterRequest;
    const answered =
      request.op === 'hit' ? counters.hit(request.key, request.windowStart, request.windowMs) : counters.undo(request.key, request.windowStart).then(() => undefined);
    void answered.then(
      (counts) => reply(worker, { type: MESSAGE, id: request.id, ...(counts ? { counts } : {}) }),
      (err: unknown) => reply(worker, { type: MESSAGE, id: request.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

function reply(worker: Worker, message: CounterReply) {
  // a child that died meanwhile needs no answer
  if (worker.isConnected()) worker.send(message);
}
