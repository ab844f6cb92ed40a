// The messaging workers of one process: the channel providers, the scheduler, the dispatcher and
// the recorder that turns provider reports into message events in batches.
import { accountDkimKeys } from '../domains/signing-keys.ts';
import { IntegrationProviders } from '../integrations/providers.ts';
import { ProviderRegistry } from '../channels/index.ts';
import type { ChannelProvider, DeliveryReport, ReportSink } from '../channels/port.ts';
import { sandboxReport } from '../channels/sandbox.ts';
import { MESSAGE_EVENT_TYPES, type Channel } from '../../commands/message.ts';
import { sandboxSentBefore } from '../../projections/messages.ts';
import type { Engage } from '../context.ts';
import { comparePositions } from '../eventstore/port.ts';
import { recordReports } from '../messages/reports.ts';
import { LoopBackoff } from './backoff.ts';
import { Dispatcher } from './dispatcher.ts';
import { nextAdvance } from './loop.ts';
import { Scheduler } from './scheduler.ts';

export class ReportRecorder {
  private queue: DeliveryReport[] = [];
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;
  /**
   * Reports for a message this process is still dispatching wait until the dispatcher has
   * recorded what the provider said: a report recorded first would overtake our own `sent`.
   */
  holdWhile?: (messageId: string) => boolean;

  private readonly backoff: LoopBackoff;

  constructor(private readonly engage: Engage) {
    this.backoff = new LoopBackoff(engage.log, 'delivery report recorder');
  }

  readonly sink = (reports: DeliveryReport[]) => {
    this.queue.push(...reports);
    if (!this.timer && !this.flushing) {
      this.timer = setTimeout(() => void this.flush(), 20);
    }
  };

  async flush(): Promise<void> {
    this.timer = undefined;
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      // never gives up on a report (a lost database is waited out): the provider made its call
      for (;;) {
        // the batch is chosen first: a report held for a message being dispatched leaves the hold
        // only once the dispatcher has recorded what the provider said, so the head read below is
        // after that `sent` (chosen after the head, its `sent` could still be on its way to the
        // read model, and the whole batch would meet a newer revision: one stream at a time then)
        const batch: DeliveryReport[] = [];
        const held: DeliveryReport[] = [];
        for (const r of this.queue) {
          if (batch.length < 5000 && !(r.messageId && this.holdWhile?.(r.messageId))) batch.push(r);
          else held.push(r);
        }
        // taken out of the queue now: reports that come in meanwhile wait for the next batch
        this.queue = held;
        if (batch.length === 0) break;
        // the read model first shows what is already recorded (our own `sent` above all), so that
        // recordReports can append the batch at the revisions it reads, not one stream at a time
        try {
          await this.engage.runner.waitFor(['messages'], await this.engage.store.headPosition(), 5_000);
        } catch (err) {
          this.queue.unshift(...batch);
          await this.backoff.failed(err);
          continue;
        }
        try {
          await recordReports(this.engage, batch);
          this.backoff.succeeded();
        } catch (err) {
          this.queue.unshift(...batch);
          await this.backoff.failed(err);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      // reports held back for messages still being dispatched: look again shortly
      if (this.queue.length && !this.timer) this.timer = setTimeout(() => void this.flush(), 20);
    });
    return this.flushing;
  }
}

export interface Messaging {
  providers: ProviderRegistry;
  dispatcher: Dispatcher;
  scheduler: Scheduler;
  reports: ReportRecorder;
  stop(): Promise<void>;
}

export async function startMessaging(engage: Engage, overrides: Partial<Record<Channel, ChannelProvider>> = {}): Promise<Messaging> {
  const reports = new ReportRecorder(engage);
  const accountKeyFor = accountDkimKeys(engage.pool, engage.clock);
  const providers = new ProviderRegistry(reports.sink, engage.config, overrides, engage.log, accountKeyFor, new IntegrationProviders(engage.pool, engage.config, engage.clock, accountKeyFor));
  const dispatcher = new Dispatcher(engage, providers);
  const scheduler = new Scheduler(engage, () => dispatcher.wake());
  reports.holdWhile = (id) => dispatcher.isDispatching(id);
  dispatcher.start();
  scheduler.start();
  const stopResuming = new AbortController();
  const resuming = resumeSandboxReports(engage, reports.sink, new Date(), stopResuming.signal).catch((err: unknown) =>
    engage.log.error({ err }, 'resuming sandbox delivery reports failed'),
  );
  return {
    providers,
    dispatcher,
    scheduler,
    reports,
    async stop() {
      stopResuming.abort();
      await Promise.all([resuming, scheduler.stop(), dispatcher.stop()]);
      // the dispatcher has recorded its last outcomes: nothing calls a provider any more
      await providers.close();
      await reports.flush();
    },
  };
}

/**
 * The sandbox plays a carrier that lives inside the process, so the delivery reports it still
 * owed die with the process (a crash, a SIGKILL): the messages would stay `sent` for ever. A real
 * carrier keeps them and calls back later. To behave the same, once the messages read model has
 * caught up, every message the sandbox accepted before this process started and that has no
 * report yet is reported now. (If another live process still owes the report, it arrives twice;
 * the second is a duplicate and changes nothing.)
 */
async function resumeSandboxReports(engage: Engage, sink: ReportSink, startedAt: Date, stopped: AbortSignal): Promise<void> {
  const head = await engage.store.headPosition();
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (stopped.aborted) return;
    const at = engage.runner.position('messages');
    if (at && comparePositions(at, head) >= 0) break;
    if (at && (await engage.store.countAfter(at, MESSAGE_EVENT_TYPES, 1)) === 0) break;
    if (Date.now() > deadline) break;
    await nextAdvance(engage.runner, 'messages', 200, stopped);
  }
  let after = '';
  while (!stopped.aborted) {
    const rows = await sandboxSentBefore(engage.pool, startedAt, after, 1000);
    if (rows.length === 0) return;
    engage.log.info({ messages: rows.length }, 'resuming sandbox delivery reports lost with a previous process');
    sink(rows.map((m) => sandboxReport({ id: m.id, channel: m.channel, to: m.to_address }, { resumed: true })));
    after = rows[rows.length - 1].id;
  }
}
