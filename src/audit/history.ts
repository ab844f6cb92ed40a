// A resource's audit trail over HTTP: every event of its stream, in order, with time, type, actor,
// request id and the fields the event recorded, for the account that owns it (README "Audit trail").
// Reads the event store (audit endpoints are the one read that does, README "Audit trail"); personal data is
// opened by the store, so what an erasure destroyed shows as "[erased]".
import type { Engage } from '../context.ts';
import { redactCredentials } from '../credentials.ts';
import { invalidField, notFound } from '../errors.ts';
import { positionToString, type RecordedEvent } from '../eventstore/port.ts';
import { ERASED } from '../personal-data/codec.ts';

export interface HistoryEntry {
  revision: number;
  position: string;
  at: string;
  type: string;
  actor: string | null;
  request_id: string | null;
  changes: Record<string, unknown>;
}

export interface HistoryPage {
  data: HistoryEntry[];
  next_cursor: string | null;
}

export interface HistoryQuery {
  limit: number;
  cursor?: string;
}

/** Where a resource's history lives and which of the stream's events are about it. */
export interface HistorySource {
  /** what a 404 names ("contact", "api key", …) */
  resource: string;
  stream: string;
  /** for a resource that shares a stream (an API key in its account's stream): the events about it */
  concerns?: (event: RecordedEvent) => boolean;
}

/**
 * Fields an entry shows masked, by event type: a push device's token, which reaches the person's phone
 * (README "Push devices"), as its last 6 characters (enough to tell devices apart).
 */
const MASKED: Readonly<Record<string, readonly string[]>> = { ContactDeviceRegistered: ['token'] };
const MASK_KEEPS = 6;

/** The value as an entry shows it: its last characters, unless it is erased already. */
const masked = (value: unknown) => (typeof value === 'string' && value !== ERASED ? `…${value.slice(-MASK_KEEPS)}` : value);

/** Fields every event of a stream repeats (who owns it, which resource): not changes. */
const BOOKKEEPING = new Set(['account_id', 'id']);

/**
 * What an event changed, as far as it may be shown: secrets sealed in the log (webhook signing
 * secrets, DKIM private keys, integration credentials) and credential hashes are never shown.
 */
export function changesOf(data: unknown): Record<string, unknown> {
  if (data === null || typeof data !== 'object') return {};
  const shown = redactCredentials(hideSealed(data)) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(shown).filter(([k]) => !BOOKKEEPING.has(k)));
}

function hideSealed(value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith('sealed:v1:') ? '[secret]' : value;
  if (Array.isArray(value)) return value.map(hideSealed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideSealed(v)]));
}

/** The account an event belongs to: its data's account_id, else the metadata's. */
const accountOf = (e: RecordedEvent): string | undefined => ((e.data as { account_id?: string } | null)?.account_id ?? e.metadata.accountId) || undefined;

const timeOf = (e: RecordedEvent): string => e.createdAt.toISOString();

const entryOf = (e: RecordedEvent): HistoryEntry => ({
  revision: Number(e.revision),
  position: positionToString(e.position),
  at: timeOf(e),
  type: e.type,
  actor: e.metadata.actor ?? null,
  request_id: e.metadata.requestId ?? null,
  changes: maskedChanges(e.type, changesOf(e.data)),
});

function maskedChanges(type: string, changes: Record<string, unknown>): Record<string, unknown> {
  const fields = MASKED[type];
  if (!fields) return changes;
  return Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, fields.includes(k) ? masked(v) : v]));
}

/**
 * One page of a resource's history, oldest first. The cursor is the last revision shown. Another
 * account's resource, and one that never existed, are the same 404; a deleted one keeps its history.
 */
export async function historyOf(engage: Engage, accountId: string, source: HistorySource, page: HistoryQuery): Promise<HistoryPage> {
  const after = page.cursor === undefined ? -1 : cursorRevision(page.cursor);
  const first = await engage.store.readStream(source.stream, { maxCount: source.concerns ? undefined : 1 });
  const owned = first.find((e) => !source.concerns || source.concerns(e));
  if (!owned || accountOf(owned) !== accountId) throw notFound(source.resource);
  if (source.concerns) {
    // a shared stream (small: an account's own events) is read whole and filtered
    const mine = first.filter(source.concerns).filter((e) => Number(e.revision) > after);
    return pageOf(mine, page.limit);
  }
  const events = await engage.store.readStream(source.stream, { fromRevision: BigInt(after + 1), maxCount: page.limit + 1 });
  return pageOf(events, page.limit);
}

function pageOf(events: RecordedEvent[], limit: number): HistoryPage {
  const shown = events.slice(0, limit).map(entryOf);
  return { data: shown, next_cursor: events.length > limit ? String(shown[shown.length - 1].revision) : null };
}

function cursorRevision(cursor: string): number {
  if (!/^\d{1,15}$/.test(cursor)) throw invalidField('cursor', 'not a cursor this list gave out');
  return Number(cursor);
}
