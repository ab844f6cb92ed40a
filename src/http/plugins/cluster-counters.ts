// Rate-limit logs for `engage serve --processes N` without Redis: the primary process holds one
// MemoryCounters and every API child asks it over the cluster's IPC channel, so an account's limit
// is one budget across the processes, not one per process, and every admission is made on the
// primary's one clock in the order the primary receives them.
import type { Worker } from 'node:cluster';
import type { Admission, CounterStore } from './rate-limit.ts';

const MESSAGE = 'engage:counters';

type CounterAsk = { op: 'admit'; key: string; limit: number; windowMs: number } | { op: 'takeBack'; key: string; ticket: string };
type CounterRequest = { type: typeof MESSAGE; id: number } & CounterAsk;

interface CounterReply {
  type: typeof MESSAGE;
  id: number;
  admission?: Admission;
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

/** An API child's logs: each admission and take-back is a round trip to the primary's logs. */
export class ClusterCounters implements CounterStore {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(admission?: Admission): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  private readonly onMessage = (m: unknown) => {
    if (!isReply(m)) return;
    const waiter = this.pending.get(m.id);
    if (!waiter) return;
    this.pending.delete(m.id);
    clearTimeout(waiter.timer);
    if (m.error !== undefined) waiter.reject(new Error(`rate-limit counters: ${m.error}`));
    else waiter.resolve(m.admission);
  };

  constructor(private readonly channel: IpcChannel = process) {
    if (!channel.send) throw new Error('ClusterCounters needs an IPC channel to the primary (a node:cluster child)');
    channel.on('message', this.onMessage);
  }

  async admit(key: string, limit: number, windowMs: number): Promise<Admission> {
    return (await this.ask({ op: 'admit', key, limit, windowMs }))!;
  }

  async takeBack(key: string, ticket: string): Promise<void> {
    await this.ask({ op: 'takeBack', key, ticket });
  }

  async close(): Promise<void> {
    this.channel.off('message', this.onMessage);
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('rate-limit counters closed'));
      this.pending.delete(id);
    }
  }

  private ask(request: CounterAsk): Promise<Admission | undefined> {
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

/** The primary's end: answers one child's requests from the primary's one store (a MemoryCounters). */
export function answerCounterRequests(worker: Worker, counters: CounterStore): void {
  worker.on('message', (m: unknown) => {
    if (typeof m !== 'object' || m === null || (m as CounterRequest).type !== MESSAGE) return;
    const request = m as CounterRequest;
    const answered =
      request.op === 'admit' ? counters.admit(request.key, request.limit, request.windowMs) : counters.takeBack(request.key, request.ticket).then(() => undefined);
    void answered.then(
      (admission) => reply(worker, { type: MESSAGE, id: request.id, ...(admission ? { admission } : {}) }),
      (err: unknown) => reply(worker, { type: MESSAGE, id: request.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

function reply(worker: Worker, message: CounterReply) {
  // a child that died meanwhile needs no answer
  if (worker.isConnected()) worker.send(message);
}
