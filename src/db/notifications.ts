// A LISTEN session of its own (LISTEN needs one) on Postgres notification channels, kept for as
// long as the process lives: it reconnects after an outage with backoff, starts a new session when
// pg-listen gives one up, and says when it is (re)connected — notifications may have been missed
// while it was away, so a caller treats a (re)connect as "anything may have happened".
import type { Logger } from 'pino';
import type pg from 'pg';
import pgListen, { type Options, type Subscriber } from 'pg-listen';
import { within } from '../sleep.ts';

type CreateSubscriber = (cfg: pg.ClientConfig, opts?: Options) => Subscriber;
// pg-listen is CommonJS with `exports.default`: under ESM its function is one level down
const createSubscriber: CreateSubscriber = (pgListen as unknown as { default?: CreateSubscriber }).default ?? (pgListen as unknown as CreateSubscriber);

export class NotificationListener {
  private subscriber?: Subscriber;
  private started?: Promise<void>;
  private closed = false;

  /**
   * @param handlers what to do with each channel's payloads
   * @param onConnected called on every (re)connect (on the first, its LISTENs may still be queued on
   *   the session: a NOTIFY sent there with notify() goes after them)
   * @param what names the listener in log lines ("event notifications")
   * @param onLost called when its connection is lost (notifications go unheard until onConnected)
   */
  constructor(
    private readonly connectionString: string | undefined,
    private readonly handlers: Readonly<Record<string, (payload: string) => void>>,
    private readonly onConnected: () => void,
    private readonly what: string,
    private readonly log?: Logger,
    private readonly onLost?: () => void,
  ) {}

  /** Starts listening (idempotent); resolves once the first attempt to connect has ended either way. */
  start(): Promise<void> {
    if (!this.started) this.started = this.connect(0);
    return this.started;
  }

  private async connect(generation: number): Promise<void> {
    if (this.closed) return;
    const cfg: pg.ClientConfig = this.connectionString ? { connectionString: this.connectionString } : {};
    // retryTimeout 0: never give up reconnecting (pg-listen's default stops after 3 s of outage);
    // notifications arrive as raw strings (parse: identity), whatever their payload looks like
    const subscriber = createSubscriber(cfg, {
      retryLimit: Infinity,
      retryTimeout: 0,
      retryInterval: (attempt) => Math.min(2_000, 100 * 2 ** Math.min(attempt, 5)),
      paranoidChecking: 10_000,
      parse: (payload: string) => payload,
      serialize: (payload: unknown) => String(payload),
    });
    this.subscriber = subscriber;
    let lost = false;
    for (const [channel, handle] of Object.entries(this.handlers)) subscriber.notifications.on(channel, (payload: unknown) => handle(typeof payload === 'string' ? payload : ''));
    subscriber.events.on('connected', () => {
      if (lost) this.log?.info(`${this.what}: listener reconnected`);
      lost = false;
      this.onConnected();
    });
    subscriber.events.on('reconnect', (attempt: number) => {
      if (!lost) {
        this.log?.warn({ attempt }, `${this.what}: listener lost its connection; reconnecting (readers poll meanwhile)`);
        this.onLost?.();
      }
      lost = true;
    });
    subscriber.events.on('error', (err: Error) => {
      // pg-listen gave up on this session (e.g. LISTEN failed right after a reconnect): start a new one
      this.log?.warn({ err: err.message }, `${this.what}: listener failed; starting a new one`);
      if (this.subscriber !== subscriber || this.closed) return;
      this.onLost?.();
      void subscriber.close().catch(() => undefined);
      setTimeout(() => void this.connect(generation + 1), Math.min(5_000, 200 * 2 ** Math.min(generation, 5))).unref();
    });
    // registered before connecting: if the first connect fails, pg-listen's own reconnect loop
    // re-issues LISTEN for the registered channels once it gets through
    for (const channel of Object.keys(this.handlers)) subscriber.listenTo(channel)?.catch(() => undefined);
    try {
      await subscriber.connect();
    } catch (err) {
      lost = true;
      this.log?.warn({ err: (err as Error).message }, `${this.what}: listener could not connect; retrying in the background`);
    }
  }

  /**
   * A NOTIFY sent on the listener's own session: it goes out after the session's LISTENs, so what
   * others answer to it is heard. Best effort: false when it could not be sent, or not within
   * `timeoutMs` (a database that does not answer must not hold up a shutdown).
   */
  async notify(channel: string, payload: string, timeoutMs = 1_000): Promise<boolean> {
    if (!this.subscriber || this.closed) return false;
    return within(this.subscriber.notify(channel, payload), timeoutMs).then(
      () => true,
      () => false,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.subscriber) await this.subscriber.close().catch(() => undefined);
  }
}
