// A bulk's intake (README "The write path"): a bulk is answered once its validated messages are
// stored whole, sealed, in one row of bulk_intakes; their MessageAccepted events are appended behind
// the answer, by the process that took the bulk, and by any process once that one's lease has run
// out (it died, or cannot write). Each event's id is fixed by its message's, so appending a bulk
// again writes nothing twice: each message stream already written answers as the retry it is. The row
// goes once every message is in the log. Until then a message of the bulk is found through its row:
// reading, cancelling or resending it, and erasing its recipient, first append the bulk's messages.
import { promisify } from 'node:util';
import { deflateRawSync, inflateRaw } from 'node:zlib';
import type { MessageAcceptedData } from '../../commands/message.ts';
import type { Engage } from '../context.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { sealBytes, unsealBytes } from '../seal.ts';
import { doublingDelay, sleep } from '../sleep.ts';
import { appendAccepted } from './append-accepted.ts';

const inflate = promisify(inflateRaw);
/** The service key the rows are sealed under (src/seal.ts). */
const SEAL_KEY = 'bulk_intake_seal';
/** The retries of a bulk its own process could not append: 250 ms doubling to 5 s, until it stops. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/**
 * Bulks whose messages a process appends at once, in the background (README "The write path"): each
 * holds its 10,000 messages in memory, sealed and encoded, while it is appended; bulks taken faster
 * wait in their rows.
 */
export const BULK_APPENDS_AT_ONCE = 2;

/** What a row's payload holds: a bulk's messages, ready to append. */
interface Payload {
  metadata: EventMetadata;
  messages: MessageAcceptedData[];
}

/** A bulk, opened from its row (or still in hand where it was accepted). */
interface BulkIntake extends Payload {
  bulkId: string;
  accountId: string;
}

/** A row as read to append it. */
type IntakeRow = { bulk_id: string; account_id: string; payload: Buffer };

const perEngage = new WeakMap<Engage, BulkIntakes>();

/** This process's intakes of `engage` (one per Engage, made on first use). */
export function bulkIntakes(engage: Engage): BulkIntakes {
  let intakes = perEngage.get(engage);
  if (!intakes) perEngage.set(engage, (intakes = new BulkIntakes(engage)));
  return intakes;
}

export class BulkIntakes {
  /** the appends running in this process, by bulk: a reader that needs a bulk's messages joins its append */
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  /** the background appends of bulks this process took (BULK_APPENDS_AT_ONCE at most) */
  private appending = 0;
  /** bulks this process took, in their rows, for when fewer appends run */
  private readonly waiting: string[] = [];

  constructor(private readonly engage: Engage) {}

  /**
   * Stores a bulk's messages (committed when this resolves: the bulk is accepted), then appends them
   * in the background, trying again until they are in the log or this process stops.
   */
  async accept(accountId: string, bulkId: string, messages: MessageAcceptedData[], metadata: EventMetadata): Promise<void> {
    const intake: BulkIntake = { bulkId, accountId, metadata, messages };
    const payload: Payload = { metadata, messages };
    // deflated (a bulk's JSON shrinks many times over, in a few ms), then sealed
    const deflated = deflateRawSync(Buffer.from(JSON.stringify(payload)), { level: 1 });
    const sealed = await sealBytes(this.engage.pool, SEAL_KEY, deflated);
    let first = messages[0].id;
    let last = first;
    for (const m of messages) {
      if (m.id < first) first = m.id;
      if (m.id > last) last = m.id;
    }
    await this.engage.pool.query(
      `INSERT INTO bulk_intakes (bulk_id, account_id, first_id, last_id, messages, payload, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000))`,
      [bulkId, accountId, first, last, messages.length, sealed, this.engage.config.DISPATCH_LEASE_MS],
    );
    // a bulk taken while this process stops is left to the process that takes it up after its lease;
    // the append starts after this turn of the event loop, so the answer goes out first. Beyond
    // BULK_APPENDS_AT_ONCE appends running, the bulk waits in its row, not in memory: its messages
    // are read back when its turn comes
    setImmediate(() => {
      if (this.stopping.signal.aborted) return;
      if (this.appending < BULK_APPENDS_AT_ONCE) void this.appendInBackground(bulkId, intake);
      else this.waiting.push(bulkId);
    });
  }

  /**
   * Appends the bulk not yet in the log that holds this message of the account, if one does (or
   * awaits the append under way): once this resolves, the message is in the log if it was accepted.
   */
  async settle(accountId: string, messageId: string): Promise<void> {
    // the bulks whose ids span it (another process's message may fall between a bulk's ids too:
    // appending that bulk early does no harm)
    await this.appendEach('WHERE account_id = $1 AND $2::text COLLATE "C" BETWEEN first_id AND last_id', [accountId, messageId]);
  }

  /** Appends every bulk of the account not yet in the log (an erasure does, before it destroys keys). */
  async settleAccount(accountId: string): Promise<void> {
    await this.appendEach('WHERE account_id = $1', [accountId]);
  }

  /** Appends every bulk not yet in the log, whoever took it (a test waiting for what it wrote). */
  async settleAll(): Promise<void> {
    await this.appendEach('', []);
  }

  /** Appends each bulk (oldest first) that `where` finds now. */
  private async appendEach(where: string, params: unknown[]): Promise<void> {
    const { rows } = await this.engage.pool.query<{ bulk_id: string }>(`SELECT bulk_id FROM bulk_intakes ${where} ORDER BY accepted_at`, params);
    for (const r of rows) await this.appendNow(r.bulk_id);
  }

  /**
   * Takes one bulk whose lease has run out (its process died, or has not managed to append it), if
   * any, and appends it; answers whether it found one. The lease is renewed as it is taken.
   */
  async sweepOne(): Promise<boolean> {
    const { rows } = await this.engage.pool.query<IntakeRow>(
      `UPDATE bulk_intakes SET lease_until = now() + make_interval(secs => $1::double precision / 1000)
       WHERE bulk_id = (SELECT bulk_id FROM bulk_intakes WHERE lease_until < now() ORDER BY accepted_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING bulk_id, account_id, payload`,
      [this.engage.config.DISPATCH_LEASE_MS],
    );
    if (rows.length === 0) return false;
    const intake = await this.opened(rows[0]);
    this.engage.log.warn({ bulkId: intake.bulkId, accountId: intake.accountId, messages: intake.messages.length }, 'appending the messages of a bulk whose process left them');
    await this.appendOnce(intake);
    return true;
  }

  /**
   * Ends the background appends: the retries stop, and a bulk accepted from now on is left in its
   * row (another process takes it up after its lease; a reader here appends it). Waits for the
   * appends under way.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * Appends a bulk this process took, trying again until it is in the log or this process stops;
   * then starts the next bulk waiting. `inHand`: its messages as accepted (a bulk that waited, or
   * one tried before, is appended from its row: another process, or a reader here, may have
   * appended it meanwhile).
   */
  private async appendInBackground(bulkId: string, inHand?: BulkIntake): Promise<void> {
    this.appending++;
    try {
      for (let failures = 1; ; failures++) {
        try {
          if (failures === 1 && inHand) await this.appendOnce(inHand);
          else await this.appendNow(bulkId);
          return;
        } catch (err) {
          const stopped = this.stopping.signal.aborted;
          this.engage.log.error(
            { err, bulkId, accountId: inHand?.accountId, messages: inHand?.messages.length },
            stopped ? 'appending a bulk’s messages failed while stopping; another process takes it up once its lease ends' : 'appending a bulk’s messages failed; trying again',
          );
          if (stopped) return;
          await sleep(doublingDelay(failures, RETRY_FIRST_MS, RETRY_MAX_MS), this.stopping.signal);
        }
      }
    } finally {
      this.appending--;
      // the bulks waiting are appended in the order they were taken (left in their rows when stopping)
      while (!this.stopping.signal.aborted && this.appending < BULK_APPENDS_AT_ONCE && this.waiting.length > 0) void this.appendInBackground(this.waiting.shift()!);
    }
  }

  /** Appends the bulk now: joins this process's append of it, else reads its row (gone: it is in the log). */
  private async appendNow(bulkId: string): Promise<void> {
    const running = this.running.get(bulkId);
    if (running) {
      try {
        return await running;
      } catch {
        // that attempt failed: try once more here, from the row
      }
    }
    const { rows } = await this.engage.pool.query<IntakeRow>(
      'SELECT bulk_id, account_id, payload FROM bulk_intakes WHERE bulk_id = $1',
      [bulkId],
    );
    if (rows.length > 0) await this.appendOnce(await this.opened(rows[0]));
  }

  /** One attempt to append the bulk's messages and drop its row; one at a time per bulk in this process. */
  private appendOnce(intake: BulkIntake): Promise<void> {
    const running = this.running.get(intake.bulkId);
    if (running) return running;
    const attempt = (async () => {
      await appendAccepted(this.engage, intake.messages, intake.metadata, true);
      await this.engage.pool.query('DELETE FROM bulk_intakes WHERE bulk_id = $1', [intake.bulkId]);
    })().finally(() => this.running.delete(intake.bulkId));
    this.running.set(intake.bulkId, attempt);
    return attempt;
  }

  private async opened(row: IntakeRow): Promise<BulkIntake> {
    const payload = JSON.parse((await inflate(await unsealBytes(this.engage.pool, SEAL_KEY, row.payload))).toString('utf8')) as Payload;
    return { bulkId: row.bulk_id, accountId: row.account_id, metadata: payload.metadata, messages: payload.messages };
  }
}
