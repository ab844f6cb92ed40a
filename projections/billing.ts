// Read model of billing (README "Billing"): each account's plan, currency, details and balance; the
// balance ledger (a debit per sent message at its sell price, credits for failures the provider did
// not charge, top-ups, currency conversions); each message's charge; and usage per month and
// channel. Everything follows from the log and the dated tables in src/billing/, so a rebuild gives
// the same rows. The balance always equals the sum of the ledger in the account's currency; the
// ledger rows in any other currency sum to zero (a conversion moves the whole balance over).
//
// A batch is applied in memory: the accounts and messages it touches are read once, its events
// folded in log order, and the results written back in a handful of statements.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { encodeTime } from 'ulid';
import { BILLING_EVENT_TYPES, type BillingDetails, type BillingEvent, DEFAULT_BILLING_CURRENCY } from '../commands/billing.ts';
import { type Channel, type MessageAcceptedData, type MessageEvent, PHONE_CHANNELS, type StatusFacts, statusEventsCarryFacts } from '../commands/message.ts';
import { chargeDependsOnMessage, failureIsCredited } from '../src/billing/charges.ts';
import { multiplyMicros } from '../src/billing/money.ts';
import { sellPriceAt } from '../src/billing/prices.ts';
import { conversionRate, type Currency } from '../src/billing/rates.ts';
import { recipientCountry } from '../src/billing/recipient-country.ts';
import { prepared } from '../src/db/prepared.ts';
import { type Statement, writeTogether } from '../src/db/together.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { openEvents } from '../src/personal-data/store.ts';
import type { Projection, TableNamer } from '../src/read-models/projection.ts';
import type { Db } from './queries.ts';

export type LedgerKind = 'message' | 'refund' | 'top_up' | 'conversion';

/** An account's row as a batch folds it (times as the events' strings). */
type AccountState = Omit<BillingAccountRow, 'updated_at'> & { updated_at: string | null };

interface MessageState {
  message_id: string;
  account_id: string;
  channel: Channel;
  country: string | null;
  debited_micros: number | null;
  currency: string | null;
  credited: boolean;
}

/** A ledger row as a batch writes it (the stored row with the account, the event's time string and a number amount). */
type LedgerEntry = Omit<LedgerRow, 'at' | 'amount_micros'> & { account_id: string; at: string; amount_micros: number };

const MESSAGE_TYPES = ['MessageAccepted', 'MessageSent', 'MessageFailed'] as const;

export const billingProjection: Projection = {
  name: 'billing',
  version: 1,
  tables: ['billing_accounts', 'billing_messages', 'billing_ledger', 'billing_usage'],
  types: [...BILLING_EVENT_TYPES, ...MESSAGE_TYPES],
  // only phone messages accepted before MessageAccepted kept `to_country` are opened (for their `to`)
  personalData: 'opened-by-apply',
  schema: (t) => `
    CREATE TABLE ${t('billing_accounts')} (
      account_id text PRIMARY KEY,
      tier text NOT NULL DEFAULT 'free',
      period text NOT NULL DEFAULT 'monthly',
      currency text NOT NULL DEFAULT 'USD',
      balance_micros bigint NOT NULL DEFAULT 0,
      details jsonb,
      currency_changed jsonb,
      updated_at timestamptz
    );
    CREATE TABLE ${t('billing_messages')} (
      message_id text PRIMARY KEY,
      account_id text NOT NULL,
      channel text NOT NULL,
      country text,
      debited_micros bigint,
      currency text,
      credited boolean NOT NULL DEFAULT false
    );
    CREATE TABLE ${t('billing_ledger')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      at timestamptz NOT NULL,
      kind text NOT NULL,
      amount_micros bigint NOT NULL,
      currency text NOT NULL,
      message_id text,
      channel text,
      country text,
      description text NOT NULL,
      log_commit numeric(20) NOT NULL,
      log_prepare numeric(20) NOT NULL,
      seq int NOT NULL
    );
    CREATE INDEX ${t('billing_ledger')}_order ON ${t('billing_ledger')} (account_id, log_commit DESC, log_prepare DESC, seq DESC);
    CREATE TABLE ${t('billing_usage')} (
      account_id text NOT NULL,
      month date NOT NULL,
      channel text NOT NULL,
      currency text NOT NULL,
      messages int NOT NULL,
      amount_micros bigint NOT NULL,
      PRIMARY KEY (account_id, month, channel, currency)
    );`,
  apply: applyBilling,
};

/** A status event of a message billing keeps no row for: it names a channel priced by itself alone. */
const pricedByChannelAlone = (d: StatusFacts): d is StatusFacts & { channel: Channel } => !!d.channel && !chargeDependsOnMessage(d.channel);

/**
 * The message a MessageSent is about when billing keeps no row for it: one priced by its channel
 * alone (email, push), named by the event (StatusFacts). The decider writes one MessageSent per
 * message, so it is debited once; a later failure is never credited (src/billing/charges.ts).
 */
function byChannelAlone(d: { id: string; account_id: string } & StatusFacts): MessageState | undefined {
  if (!pricedByChannelAlone(d)) return undefined;
  return { message_id: d.id, account_id: d.account_id, channel: d.channel, country: null, debited_micros: null, currency: null, credited: false };
}

/** A ledger entry's id: fixed by the event and the entry's place in it, so a rebuild writes the same ids. */
function entryId(event: RecordedEvent, seq: number): string {
  const digest = createHash('sha256').update(`${event.id}\u0000${seq}`).digest();
  const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i]! % 32];
  return `btx_${encodeTime(Date.parse(String((event.data as { at?: string }).at ?? event.createdAt.toISOString())) || 0, 10)}${random}`;
}

const monthOf = (at: string) => `${at.slice(0, 7)}-01`;

async function applyBilling(tx: pg.PoolClient, recorded: RecordedEvent[], t: TableNamer): Promise<void> {
  const events = await withRecipientCountries(tx, recorded);
  // (a message priced by its channel alone, named by its event, has no row to read)
  const messageIds = events
    .filter((e) => (e.type === 'MessageSent' || e.type === 'MessageFailed') && !pricedByChannelAlone(e.data as StatusFacts))
    .map((e) => (e.data as { id: string }).id);
  const { accounts, messages } = await loadBatchState(tx, t, [...new Set(events.map((e) => (e.data as { account_id: string }).account_id))], [...new Set(messageIds)]);
  // only the accounts the batch changed are written back (a batch of accepted messages changes none)
  const asRead = new Map([...accounts].map(([id, a]) => [id, JSON.stringify(a)]));
  const changedMessages = new Set<string>();
  const ledger: LedgerEntry[] = [];
  const usage = new Map<string, { account_id: string; month: string; channel: string; currency: string; messages: number; amount_micros: number }>();

  for (const event of events) {
    let seq = 0;
    const entry = (account: AccountState, at: string, kind: LedgerKind, amount: number, currency: string, description: string, message?: MessageState) => {
      ledger.push({
        id: entryId(event, seq), account_id: account.account_id, at, kind, amount_micros: amount, currency, description,
        message_id: message?.message_id ?? null, channel: message?.channel ?? null, country: message?.country ?? null,
        log_commit: event.position.commit.toString(), log_prepare: event.position.prepare.toString(), seq: seq++,
      });
      if (currency === account.currency) account.balance_micros += amount;
      account.updated_at = at;
    };
    const e = event as unknown as BillingEvent | MessageEvent;
    switch (e.type) {
      case 'MessageAccepted': {
        const d = e.data as MessageAcceptedData;
        // a message priced by its channel alone, whose MessageSent names the channel, needs no row
        if (statusEventsCarryFacts(event) && !chargeDependsOnMessage(d.channel)) break;
        messages.set(d.id, { message_id: d.id, account_id: d.account_id, channel: d.channel, country: d.to_country ?? null, debited_micros: null, currency: null, credited: false });
        changedMessages.add(d.id);
        break;
      }
      case 'MessageSent': {
        const m = messages.get(e.data.id) ?? byChannelAlone(e.data);
        if (!m || m.debited_micros !== null) break;
        const account = accounts.get(m.account_id)!;
        // the sell price in effect when sent, in the account's currency at the rate in effect then
        const price = sellPriceAt(m.channel, m.country, e.data.at);
        const debit = multiplyMicros(price.sell_micros, conversionRate('USD', account.currency as Currency, e.data.at).rate);
        m.debited_micros = debit;
        m.currency = account.currency;
        if (messages.has(m.message_id)) changedMessages.add(m.message_id);
        entry(account, e.data.at, 'message', -debit, account.currency, `${m.channel} to ${m.country ?? 'elsewhere'}`, m);
        const key = [m.account_id, monthOf(e.data.at), m.channel, account.currency].join(' ');
        const row = usage.get(key) ?? { account_id: m.account_id, month: monthOf(e.data.at), channel: m.channel, currency: account.currency, messages: 0, amount_micros: 0 };
        row.messages += 1;
        row.amount_micros += debit;
        usage.set(key, row);
        break;
      }
      case 'MessageFailed': {
        const m = messages.get(e.data.id);
        if (!m || m.debited_micros === null || m.credited || !failureIsCredited(m.channel, e.data.reason)) break;
        const account = accounts.get(m.account_id)!;
        // a refund is paid in the account's currency of the day: converted if it changed since the debit
        const amount = m.currency === account.currency ? m.debited_micros : multiplyMicros(m.debited_micros, conversionRate(m.currency as Currency, account.currency as Currency, e.data.at).rate);
        m.credited = true;
        changedMessages.add(m.message_id);
        entry(account, e.data.at, 'refund', amount, account.currency, `credit: ${m.channel} to ${m.country ?? 'elsewhere'} failed (${e.data.reason.split(/[:\s]/, 1)[0]}), not charged by the provider`, m);
        break;
      }
      case 'PlanChanged': {
        const account = accounts.get(e.data.account_id)!;
        account.tier = e.data.tier;
        account.period = e.data.period;
        break;
      }
      case 'BalanceToppedUp': {
        const account = accounts.get(e.data.account_id)!;
        entry(account, e.data.at, 'top_up', e.data.amount_micros, e.data.currency, e.data.reference ? `top-up (${e.data.reference})` : 'top-up');
        break;
      }
      case 'BillingCurrencyChanged': {
        const account = accounts.get(e.data.account_id)!;
        const { from, to, rate, rates_date, at } = e.data;
        const before = account.balance_micros;
        const converted = multiplyMicros(before, rate);
        const how = `at ${rate} (rates of ${rates_date})`;
        entry(account, at, 'conversion', -before, from, `balance converted to ${to} ${how}`);
        account.currency = to;
        account.balance_micros = 0;
        entry(account, at, 'conversion', converted, to, `balance converted from ${from} ${how}`);
        account.currency_changed = { from, to, rate, rates_date, at };
        break;
      }
      case 'BillingDetailsSet': {
        const { account_id, at, ...details } = e.data;
        accounts.get(account_id)!.details = { ...details, updated_at: at };
        break;
      }
    }
  }
  // the four tables' writes in one statement
  await writeTogether(tx, [
    accountsWrite(t, [...accounts.values()].filter((a) => JSON.stringify(a) !== asRead.get(a.account_id))),
    messagesWrite(t, [...changedMessages].map((id) => messages.get(id)!)),
    ledgerWrite(t, ledger),
    usageWrite(t, [...usage.values()]),
  ]);
}

/**
 * The batch with `to_country` on every phone MessageAccepted: messages accepted before the field
 * existed are opened and their recipient's country derived (an erased recipient: unknown, priced
 * at the channel's '*' row).
 */
async function withRecipientCountries(tx: pg.PoolClient, events: RecordedEvent[]): Promise<RecordedEvent[]> {
  const older = events.filter((e) => {
    const d = e.data as MessageAcceptedData;
    return e.type === 'MessageAccepted' && d.to_country === undefined && PHONE_CHANNELS.includes(d.channel);
  });
  if (older.length === 0) return events;
  const opened = new Map<RecordedEvent, RecordedEvent>();
  (await openEvents(tx, older)).forEach((e, i) => opened.set(older[i]!, e));
  return events.map((e) => {
    const o = opened.get(e);
    if (!o) return e;
    const d = o.data as MessageAcceptedData;
    const country = typeof d.to === 'string' ? recipientCountry(d.channel, d.to) : undefined;
    return { ...e, data: { ...(e.data as object), ...(country ? { to_country: country } : {}) } };
  });
}

// ---------------------------------------------------------------------------------------------
// reading and writing a batch's state

const defaultAccount = (account_id: string): AccountState => ({
  account_id, tier: 'free', period: 'monthly', currency: DEFAULT_BILLING_CURRENCY, balance_micros: 0, details: null, currency_changed: null, updated_at: null,
});

/**
 * The batch's accounts (every one named, the default where none is stored) and the stored messages
 * of `messageIds`, in one round trip: both tables' rows as jsonb, one statement.
 */
async function loadBatchState(tx: pg.PoolClient, t: TableNamer, accountIds: string[], messageIds: string[]) {
  const { rows } = await tx.query<{ k: 'a' | 'm'; r: Record<string, unknown> }>(prepared(
    `SELECT 'a' AS k, to_jsonb(a) AS r FROM ${t('billing_accounts')} a WHERE account_id = ANY($1::text[])
     UNION ALL SELECT 'm', to_jsonb(m) FROM ${t('billing_messages')} m WHERE message_id = ANY($2::text[])`,
    [accountIds, messageIds],
  ));
  const found = new Map<string, AccountState>();
  const messages = new Map<string, MessageState>();
  for (const { k, r } of rows) {
    if (k === 'a') found.set(r.account_id as string, { ...r, balance_micros: Number(r.balance_micros), updated_at: r.updated_at ? new Date(r.updated_at as string).toISOString() : null } as AccountState);
    else messages.set(r.message_id as string, { ...r, debited_micros: r.debited_micros === null ? null : Number(r.debited_micros) } as MessageState);
  }
  return { accounts: new Map(accountIds.map((id) => [id, found.get(id) ?? defaultAccount(id)])), messages };
}

function accountsWrite(t: TableNamer, changed: AccountState[]): Statement | undefined {
  if (changed.length === 0) return undefined;
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return {
    text: `INSERT INTO ${t('billing_accounts')} (account_id, tier, period, currency, balance_micros, details, currency_changed, updated_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::jsonb[], $7::jsonb[], $8::timestamptz[])
     ON CONFLICT (account_id) DO UPDATE SET tier = excluded.tier, period = excluded.period, currency = excluded.currency, balance_micros = excluded.balance_micros,
       details = excluded.details, currency_changed = excluded.currency_changed, updated_at = excluded.updated_at`,
    values: [
      changed.map((a) => a.account_id), changed.map((a) => a.tier), changed.map((a) => a.period), changed.map((a) => a.currency), changed.map((a) => a.balance_micros),
      changed.map((a) => json(a.details)), changed.map((a) => json(a.currency_changed)), changed.map((a) => a.updated_at),
    ],
  };
}

function messagesWrite(t: TableNamer, messages: MessageState[]): Statement | undefined {
  if (messages.length === 0) return undefined;
  return {
    text: `INSERT INTO ${t('billing_messages')} (message_id, account_id, channel, country, debited_micros, currency, credited)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::boolean[])
     ON CONFLICT (message_id) DO UPDATE SET debited_micros = excluded.debited_micros, currency = excluded.currency, credited = excluded.credited`,
    values: [
      messages.map((m) => m.message_id), messages.map((m) => m.account_id), messages.map((m) => m.channel), messages.map((m) => m.country),
      messages.map((m) => m.debited_micros), messages.map((m) => m.currency), messages.map((m) => m.credited),
    ],
  };
}

function ledgerWrite(t: TableNamer, entries: LedgerEntry[]): Statement | undefined {
  if (entries.length === 0) return undefined;
  // one JSON document, not thirteen array parameters: node-postgres escapes every element of an array
  // into its text form, and a batch's descriptions and times cost more to escape than to insert
  // (README "The write path")
  return {
    text: `INSERT INTO ${t('billing_ledger')} (id, account_id, at, kind, amount_micros, currency, message_id, channel, country, description, log_commit, log_prepare, seq)
     SELECT id, account_id, at, kind, amount_micros, currency, message_id, channel, country, description, log_commit, log_prepare, seq
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, account_id text, at timestamptz, kind text, amount_micros bigint, currency text, message_id text,
                                               channel text, country text, description text, log_commit numeric, log_prepare numeric, seq int)
     ON CONFLICT (id) DO NOTHING`,
    values: [JSON.stringify(entries)],
  };
}

function usageWrite(t: TableNamer, rows: { account_id: string; month: string; channel: string; currency: string; messages: number; amount_micros: number }[]): Statement | undefined {
  if (rows.length === 0) return undefined;
  const u = t('billing_usage');
  return {
    text: `INSERT INTO ${u} (account_id, month, channel, currency, messages, amount_micros)
     SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::int[], $6::bigint[])
     ON CONFLICT (account_id, month, channel, currency) DO UPDATE SET messages = ${u}.messages + excluded.messages, amount_micros = ${u}.amount_micros + excluded.amount_micros`,
    values: [rows.map((r) => r.account_id), rows.map((r) => r.month), rows.map((r) => r.channel), rows.map((r) => r.currency), rows.map((r) => r.messages), rows.map((r) => r.amount_micros)],
  };
}

// ---------------------------------------------------------------------------------------------
// the queries the billing service reads with

export interface BillingAccountRow {
  account_id: string;
  tier: string;
  period: string;
  currency: string;
  balance_micros: number;
  details: (BillingDetails & { updated_at: string }) | null;
  currency_changed: { from: string; to: string; rate: string; rates_date: string; at: string } | null;
  updated_at: Date | null;
}

/** The account's billing row; an account with no billing events yet: the free tier, monthly, USD, nothing on the balance. */
export async function billingAccount(db: Db, accountId: string): Promise<BillingAccountRow> {
  const { rows } = await db.query('SELECT * FROM billing_accounts WHERE account_id = $1', [accountId]);
  const r = rows[0];
  if (!r) return { ...defaultAccount(accountId), updated_at: null };
  return { ...r, balance_micros: Number(r.balance_micros) } as BillingAccountRow;
}

/** The plan of each of these accounts, by account id: one query for them all (an account with no billing events: free, monthly). */
export async function billingPlans(db: Db, accountIds: readonly string[]): Promise<Map<string, Pick<BillingAccountRow, 'tier' | 'period'>>> {
  const { rows } = await db.query<{ account_id: string; tier: string; period: string }>('SELECT account_id, tier, period FROM billing_accounts WHERE account_id = ANY($1::text[])', [[...accountIds]]);
  const found = new Map(rows.map((r) => [r.account_id, { tier: r.tier, period: r.period }]));
  const { tier, period } = defaultAccount('');
  return new Map(accountIds.map((id) => [id, found.get(id) ?? { tier, period }]));
}

export interface LedgerRow {
  id: string;
  at: Date;
  kind: LedgerKind;
  amount_micros: string;
  currency: string;
  message_id: string | null;
  channel: string | null;
  country: string | null;
  description: string;
  log_commit: string;
  log_prepare: string;
  seq: number;
}

/** Where a page of the ledger continues: after this entry, in the log's order, newest first. */
export interface LedgerCursor {
  commit: string;
  prepare: string;
  seq: number;
}

/** Ledger entries of the account, newest first (the log's order), after `cursor`. */
export async function ledgerEntries(db: Db, accountId: string, limit: number, cursor?: LedgerCursor): Promise<LedgerRow[]> {
  const after = cursor ? 'AND (log_commit, log_prepare, seq) < ($3::numeric, $4::numeric, $5::int)' : '';
  const params: unknown[] = [accountId, limit, ...(cursor ? [cursor.commit, cursor.prepare, cursor.seq] : [])];
  const { rows } = await db.query<LedgerRow>(
    `SELECT id, at, kind, amount_micros, currency, message_id, channel, country, description, log_commit::text, log_prepare::text, seq
     FROM billing_ledger WHERE account_id = $1 ${after} ORDER BY log_commit DESC, log_prepare DESC, seq DESC LIMIT $2`,
    params,
  );
  return rows;
}

/** The ledger's sum per currency (the balance is the sum in the account's currency; the others are zero). */
export async function ledgerTotals(db: Db, accountId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ currency: string; total: string }>('SELECT currency, sum(amount_micros)::text AS total FROM billing_ledger WHERE account_id = $1 GROUP BY currency', [accountId]);
  return Object.fromEntries(rows.map((r) => [r.currency, Number(r.total)]));
}

export interface UsageRow {
  /** YYYY-MM */
  month: string;
  channel: string;
  currency: string;
  messages: number;
  amount_micros: number;
}

/** Sent messages and what they were debited, per month (YYYY-MM, inclusive) and channel. */
export async function usageBetween(db: Db, accountId: string, fromMonth: string, toMonth: string): Promise<UsageRow[]> {
  const { rows } = await db.query(
    `SELECT to_char(month, 'YYYY-MM') AS month, channel, currency, messages, amount_micros::text AS amount_micros
     FROM billing_usage WHERE account_id = $1 AND month BETWEEN $2::date AND $3::date ORDER BY month, channel, currency`,
    [accountId, `${fromMonth}-01`, `${toMonth}-01`],
  );
  return rows.map((r) => ({ ...r, amount_micros: Number(r.amount_micros) }) as UsageRow);
}
