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
      while (this.queue.length) {
        const batch = this.queue.splice(0, 1000);
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
  const providers = new ProviderRegistry(reports.sink, engage.config, overrides);
  const dispatcher = new Dispatcher(engage, providers);
  const scheduler = new Scheduler(engage, () => dispatcher.wake());
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
