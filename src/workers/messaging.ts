// The messaging workers of one process: the channel providers, the scheduler, the dispatcher and
// the recorder that turns provider reports into message events in batches.
import { ProviderRegistry } from '../channels/index.ts';
import type { ChannelProvider, DeliveryReport } from '../channels/port.ts';
import type { Channel } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import { recordReports } from '../messages/reports.ts';
import { Dispatcher } from './dispatcher.ts';
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

  constructor(private readonly engage: Engage) {}

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
      for (;;) {
        const batch: DeliveryReport[] = [];
        const held: DeliveryReport[] = [];
        for (const r of this.queue) {
          if (batch.length < 1000 && !(r.messageId && this.holdWhile?.(r.messageId))) batch.push(r);
          else held.push(r);
        }
        if (batch.length === 0) break;
        this.queue = held;
        try {
          await recordReports(this.engage, batch);
        } catch (err) {
          this.engage.log.error({ err, reports: batch.length }, 'recording delivery reports failed; retrying');
          this.queue.unshift(...batch);
          await new Promise((r) => setTimeout(r, 500));
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
  const providers = new ProviderRegistry(reports.sink, engage.config, overrides, engage.log);
  const dispatcher = new Dispatcher(engage, providers);
  const scheduler = new Scheduler(engage, () => dispatcher.wake());
  reports.holdWhile = (id) => dispatcher.isDispatching(id);
  dispatcher.start();
  scheduler.start();
  return {
    providers,
    dispatcher,
    scheduler,
    reports,
    async stop() {
      await scheduler.stop();
      await dispatcher.stop();
      await providers.close();
      await reports.flush();
    },
  };
}
