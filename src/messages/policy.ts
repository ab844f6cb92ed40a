// Sending policy, decided per batch before any provider call: erased and suppressed recipients fail
// (an `unsubscribe` suppression only for marketing: README "Suppressions and unsubscribes"; a `stop`
// one lets the answer to HELP through);
// marketing messages respect the per-recipient daily cap and the recipient's quiet hours (in the
// contact's time zone, else the account's, else DEFAULT_TIMEZONE);
// marketing email from a domain in warm-up respects that day's cap of the ramp (src/domains/warmup.ts),
// counted per account and From domain since UTC midnight; over it, the mail waits for the next day;
// transactional messages (transactional: true or category "transactional") bypass all three.
import type pg from 'pg';
import { isMarketing, KEYWORD_REPLY_CATEGORY, type MessageContent } from '../../commands/message.ts';
import { accountTimezones } from '../../projections/auth.ts';
import { recipientTimezones } from '../../projections/contacts.ts';
import { warmingDomains, warmupOfRow } from '../../projections/email-domains.ts';
import { marketingEmailSentSince, marketingSentSince } from '../../projections/messages.ts';
import { suppressedAmong } from '../../projections/suppressions.ts';
import { addressHasher } from '../personal-data/address-hash.ts';
import { ERASED } from '../personal-data/codec.ts';
import { keysById } from '../personal-data/keys.ts';
import { fromAddressOf } from '../channels/smtp.ts';
import type { Config, QuietHours } from '../config.ts';
import { type Clock, systemClock } from '../clock.ts';
import { TtlCache } from '../ttl-cache.ts';
import { isUndefinedTable } from '../db/errors.ts';
import { GroupCommit, perPool } from '../db/group-commit.ts';
import type { Migration } from '../db/migrations.ts';
import { plannedOnceFunction, prepared } from '../db/prepared.ts';
import { domainOfAddress } from '../domains/names.ts';
import { nextUtcMidnight, utcMidnight, warmupToday } from '../domains/warmup.ts';

export interface PolicyInput {
  id: string;
  account_id: string;
  channel: string;
  to_address: string;
  marketing: boolean;
  category: string | null;
  /** the message's sender: an email's From when it is an address (else EMAIL_FROM is) */
  sender: string | null;
  /** the data key sealing the recipient: gone once the recipient is erased */
  personal_key: string | null;
}

export type HoldReason = 'quiet_hours' | 'marketing_cap' | 'warmup_cap';

export type Decision =
  | { action: 'send' }
  | { action: 'fail'; reason: 'suppressed' | 'recipient_erased'; detail: string }
  | { action: 'hold'; until: Date; reason: HoldReason; detail: string };

/** Minutes since local midnight in a time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const m = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return h * 60 + m;
}

/** When quiet hours end for a recipient in `timeZone`, or null when `at` is outside them. */
export function quietUntil(at: Date, timeZone: string, quiet: QuietHours | null): Date | null {
  if (!quiet) return null;
  const now = localMinutes(at, timeZone);
  const { startMin, endMin } = quiet;
  const inside = startMin > endMin ? now >= startMin || now < endMin : now >= startMin && now < endMin;
  if (!inside) return null;
  const minutesLeft = (endMin - now + 24 * 60) % (24 * 60) || 24 * 60;
  // whole minutes from now to the end, then to the start of that minute
  const until = new Date(at.getTime() + minutesLeft * 60_000);
  until.setUTCSeconds(0, 0);
  return until;
}

/**
 * The hold facts of several sends' recipients in one statement, planned once per session
 * (plannedOnceFunction): per input row (its ordinal), the recipient's time zone (their contact's, as
 * recipient_timezones finds it: a probe of the email index and one of the phone index, the lowest
 * contact id first) and the marketing messages sent to them since that row's own `since`, with the
 * oldest (as marketing_sent_since counts them: a probe of the marketing recipients' index). Over the
 * read models' views, so a generation swapped in later is read.
 */
const RECIPIENT_HOLD_FACTS_FUNCTION = plannedOnceFunction(
  'recipient_hold_facts(p_accounts text[], p_addresses text[], p_sinces timestamptz[])',
  'o_i bigint, o_timezone text, o_n int, o_oldest timestamptz',
  `SELECT u.i, tz.timezone, s.n, s.oldest
     FROM unnest(p_accounts, p_addresses, p_sinces) WITH ORDINALITY AS u(a, addr, since, i)
     LEFT JOIN LATERAL (
       SELECT m.timezone FROM (
         SELECT c.id, c.timezone FROM contacts c WHERE c.account_id = u.a AND c.email = u.addr AND c.timezone IS NOT NULL
         UNION ALL
         SELECT c.id, c.timezone FROM contacts c WHERE c.account_id = u.a AND c.phone = u.addr AND c.timezone IS NOT NULL
       ) m ORDER BY m.id LIMIT 1
     ) tz ON true
     LEFT JOIN LATERAL (
       SELECT count(*)::int AS n, min(m.sent_at) AS oldest FROM message_states m
        WHERE m.account_id = u.a AND m.marketing_to = u.addr AND m.marketing AND m.sent_at > u.since
     ) s ON true`,
);

export const POLICY_LOOKUP_MIGRATIONS: Migration[] = [
  { id: 67, name: "messages: several sends' hold forecasts read in one statement planned once per session", sql: RECIPIENT_HOLD_FACTS_FUNCTION },
];

/** One send's recipient, whose hold facts a forecast wants. */
export interface HoldFactsWant {
  accountId: string;
  address: string;
  since: Date;
}

interface HoldFacts {
  timezone: string | null;
  sent: { count: number; oldest: Date } | null;
}

/**
 * The hold facts of the recipients of sends forecast at once (README "The write path"): the wants of
 * concurrent sends, made while one batch is read, go together in the next, one statement for all.
 * Per pool.
 */
const holdFactsBatch = perPool(
  (db: Pick<pg.Pool, 'query'>) =>
    new GroupCommit<HoldFactsWant, HoldFacts>((wants) => recipientHoldFacts(db, wants), { maxBatch: 500 }),
);

/** Each want's hold facts, in order: one statement, or (a live messages generation too old for it) the look-ups one by one. */
export async function recipientHoldFacts(db: Pick<pg.Pool, 'query'>, wants: readonly HoldFactsWant[]): Promise<HoldFacts[]> {
  try {
    const { rows } = await db.query<{ o_i: string; o_timezone: string | null; o_n: number; o_oldest: Date | null }>(
      prepared('SELECT o_i, o_timezone, o_n, o_oldest FROM recipient_hold_facts($1::text[], $2::text[], $3::timestamptz[])', [
        wants.map((w) => w.accountId), wants.map((w) => w.address), wants.map((w) => w.since),
      ]),
    );
    const byOrdinal = new Map(rows.map((r) => [Number(r.o_i), r]));
    return wants.map((_, i) => {
      const r = byOrdinal.get(i + 1);
      return { timezone: r?.o_timezone ?? null, sent: r?.o_n ? { count: r.o_n, oldest: r.o_oldest! } : null };
    });
  } catch (err) {
    // a live messages generation of version 5 or older has no message_states (marketingSentSince reads the view)
    if (!isUndefinedTable(err)) throw err;
    return Promise.all(
      wants.map(async ({ accountId, address, since }) => {
        const recipient = [{ account_id: accountId, address }];
        const [zones, sent] = await Promise.all([recipientTimezones(db, recipient), marketingSentSince(db, recipient, since)]);
        return { timezone: zones[0]?.timezone ?? null, sent: sent[0] ? { count: sent[0].n, oldest: sent[0].oldest } : null };
      }),
    );
  }
}

/** A From domain in warm-up: its cap today, the ramp day and the marketing emails it sent today. */
interface WarmupAllowance {
  name: string;
  day: number;
  cap: number;
  sent: number;
}

export class Policy {
  /** accounts' time zones as forecasts read them (a minute old at most) */
  private readonly accountTimezones: TtlCache<{ timezone: string | null }>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: Pick<Config, 'MARKETING_CAP_PER_DAY' | 'QUIET_HOURS' | 'DEFAULT_TIMEZONE' | 'EMAIL_FROM'>,
    clock: Clock = systemClock,
  ) {
    this.accountTimezones = new TtlCache({ ttlMs: 60_000, max: 10_000, clock });
  }

  async decide(messages: readonly PolicyInput[], now: Date): Promise<Map<string, Decision>> {
    const decisions = new Map<string, Decision>();
    if (messages.length === 0) return decisions;

    // suppressions are kept by the keyed hash of the address (an erasure's has nothing else)
    const hash = await addressHasher(this.pool);
    const hashOf = new Map(messages.map((m) => [m.id, hash(m.to_address)]));
    // what every marketing message's holds read (its recipient's time zone and marketing of the last
    // 24 h, its account's time zone) is read beside the suppressions and the keys, each one statement
    // for the batch: a suppressed or erased recipient's facts are read for nothing, where four look-ups
    // one after another cost a small batch four round trips of waiting (README "The write path")
    const candidates = messages.filter((m) => m.marketing);
    const since = new Date(now.getTime() - 24 * 3600_000);
    const [suppressedRows, keys, facts, accountTimezone] = await Promise.all([
      suppressedAmong(this.pool, messages.map((m) => ({ account_id: m.account_id, address_hash: hashOf.get(m.id)! }))),
      // the read model may not show an erasure yet; its keys are destroyed before anything else
      keysById(this.pool, messages.map((m) => m.personal_key).filter((k): k is string => k !== null)),
      candidates.length ? recipientHoldFacts(this.pool, candidates.map((m) => ({ accountId: m.account_id, address: m.to_address, since }))) : [],
      candidates.length ? accountTimezones(this.pool, candidates.map((m) => m.account_id)) : new Map<string, string>(),
    ]);
    const suppressed = new Map<string, string>();
    for (const r of suppressedRows) suppressed.set(`${r.account_id} ${r.address_hash}`, r.reason);
    // someone who unsubscribed from marketing still gets their receipts and one-time codes; every
    // other reason (stop, complaint, bounce, manual, erasure) blocks every message to the address
    const suppressionOf = (m: PolicyInput) => {
      const reason = suppressed.get(`${m.account_id} ${hashOf.get(m.id)}`);
      if (reason === 'unsubscribe' && !m.marketing) return undefined;
      // a number that said STOP may still ask for HELP, and carriers require the answer
      if (reason === 'stop' && m.category === KEYWORD_REPLY_CATEGORY) return undefined;
      return reason;
    };
    const erased = (m: PolicyInput) => m.to_address === ERASED || (m.personal_key !== null && keys.get(m.personal_key) === null);

    const marketing = messages.filter((m) => m.marketing && !erased(m) && !suppressionOf(m));
    const timezones = new Map<string, string>();
    const sentToday = new Map<string, { count: number; oldest: Date }>();
    candidates.forEach((m, i) => {
      const key = `${m.account_id} ${m.to_address}`;
      const { timezone, sent } = facts[i]!;
      if (timezone) timezones.set(key, timezone);
      if (sent) sentToday.set(key, sent);
    });
    const warmup = await this.warmupAllowance(marketing, now);

    for (const m of messages) {
      const key = `${m.account_id} ${m.to_address}`;
      // the message was accepted, then its recipient erased: there is no address left to send to
      if (erased(m)) {
        decisions.set(m.id, { action: 'fail', reason: 'recipient_erased', detail: 'the recipient was erased' });
        continue;
      }
      const reason = suppressionOf(m);
      if (reason) {
        decisions.set(m.id, { action: 'fail', reason: 'suppressed', detail: `recipient is suppressed (${reason})` });
        continue;
      }
      if (!m.marketing) {
        decisions.set(m.id, { action: 'send' });
        continue;
      }
      const tz = timezones.get(key) ?? accountTimezone.get(m.account_id) ?? this.config.DEFAULT_TIMEZONE;
      const used = sentToday.get(key) ?? { count: 0, oldest: now };
      const domain = m.channel === 'email' ? warmup.get(`${m.account_id} ${this.fromDomain(m)}`) : undefined;
      const hold = this.holdOf(now, tz, used, domain);
      if (hold) {
        decisions.set(m.id, hold);
        continue;
      }
      // count this one, so a batch cannot overshoot the caps
      sentToday.set(key, { count: used.count + 1, oldest: used.count === 0 ? now : used.oldest });
      if (domain) domain.sent++;
      decisions.set(m.id, { action: 'send' });
    }
    return decisions;
  }

  /**
   * What holds a marketing message back at `now`, in this order: the recipient's quiet hours (in
   * `tz`), the recipient's marketing messages of 24 h (`used`), the From domain's warm-up cap of the
   * day (`domain`); null when nothing does.
   */
  private holdOf(now: Date, tz: string, used: { count: number; oldest: Date }, domain: WarmupAllowance | undefined): Extract<Decision, { action: 'hold' }> | null {
    const quietEnd = quietUntil(now, tz, this.config.QUIET_HOURS);
    if (quietEnd) return { action: 'hold', until: quietEnd, reason: 'quiet_hours', detail: `quiet hours ${this.config.QUIET_HOURS!.window} in ${tz}` };
    if (used.count >= this.config.MARKETING_CAP_PER_DAY) {
      const until = new Date(used.oldest.getTime() + 24 * 3600_000);
      return { action: 'hold', until, reason: 'marketing_cap', detail: `${used.count} marketing messages in the last 24 h (cap ${this.config.MARKETING_CAP_PER_DAY})` };
    }
    if (domain && domain.sent >= domain.cap) {
      return { action: 'hold', until: nextUtcMidnight(now), reason: 'warmup_cap', detail: `warm-up day ${domain.day} of ${domain.name}: ${domain.sent} of ${domain.cap} marketing emails sent today` };
    }
    return null;
  }

  /**
   * The hold a marketing message accepted now would meet if it were dispatched at `at` (its send
   * time): what a send's answer says (README "Messaging"). A forecast from what has been sent so far
   * (the dispatcher decides again when it claims the message, counting what went out meanwhile),
   * with the account's time zone as it was up to a minute ago; its look-ups run side by side, and
   * only those the message needs (no suppression or erasure: those fail a message, never hold it).
   */
  async forecastHold(accountId: string, content: Pick<MessageContent, 'channel' | 'to' | 'transactional' | 'category' | 'sender'>, at: Date): Promise<{ reason: HoldReason; until: Date } | null> {
    if (!isMarketing(content)) return null;
    const input: PolicyInput = { id: '', account_id: accountId, channel: content.channel, to_address: content.to, marketing: true, category: content.category ?? null, sender: content.sender ?? null, personal_key: null };
    const [recipient, accountZone, warmup] = await Promise.all([
      holdFactsBatch(this.pool).add({ accountId, address: content.to, since: new Date(at.getTime() - 24 * 3600_000) }),
      this.config.QUIET_HOURS ? this.accountTimezones.get(accountId, async () => ({ timezone: (await accountTimezones(this.pool, [accountId])).get(accountId) ?? null })) : undefined,
      this.warmupAllowance([input], at),
    ]);
    const tz = recipient.timezone ?? accountZone?.timezone ?? this.config.DEFAULT_TIMEZONE;
    const used = recipient.sent ?? { count: 0, oldest: at };
    const hold = this.holdOf(at, tz, used, content.channel === 'email' ? warmup.get(`${accountId} ${this.fromDomain(input)}`) : undefined);
    return hold ? { reason: hold.reason, until: hold.until } : null;
  }

  /** The From domain of an email: its sender address's, else EMAIL_FROM's (fromAddressOf). */
  private fromDomain(m: PolicyInput): string | undefined {
    return domainOfAddress(fromAddressOf(m.sender, this.config.EMAIL_FROM).address);
  }

  /** Per `<account> <domain>` in warm-up with a cap today: the cap, the ramp day and what went out since UTC midnight. */
  private async warmupAllowance(marketing: readonly PolicyInput[], now: Date) {
    const allowance = new Map<string, WarmupAllowance>();
    const pairs = marketing.filter((m) => m.channel === 'email').flatMap((m) => {
      const domain = this.fromDomain(m);
      return domain ? [{ account_id: m.account_id, domain }] : [];
    });
    const warming = await warmingDomains(this.pool, pairs);
    if (warming.length === 0) return allowance;
    const sent = await marketingEmailSentSince(this.pool, warming.map((d) => ({ account_id: d.account_id, domain: d.domain })), utcMidnight(now));
    for (const d of warming) {
      const today = warmupToday(warmupOfRow(d), now);
      if (today.cap === null || today.day === null) continue;
      const key = `${d.account_id} ${d.domain}`;
      allowance.set(key, { name: d.domain, day: today.day, cap: today.cap, sent: sent.get(key) ?? 0 });
    }
    return allowance;
  }
}
