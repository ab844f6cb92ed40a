// Reading messages back over HTTP the way a client audits them: a message's timeline of events.
import { expect } from 'vitest';
import type { TestServer } from './harness.ts';

/** One entry of GET /v1/messages/:id/timeline. */
export interface TimelineEvent {
  type: string;
  status: string | null;
  at: string;
  reason: string | null;
  details: Record<string, any>;
  actor: string | null;
  /** the stream revision of the event */
  revision: number;
}

export async function timeline(server: TestServer, key: string, id: string): Promise<TimelineEvent[]> {
  const res = await server.call('GET', `/v1/messages/${id}/timeline`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events;
}

/** The event types of a timeline, in order. */
export const types = (events: TimelineEvent[]) => events.map((e) => e.type);

/**
 * The messages with these ids as GET /v1/messages/:id shows them (undefined where not listed yet),
 * read from the account's history pages: one call per 500 messages, so a test that polls for
 * statuses stays far inside the account's 500 reads a minute however slow the machine.
 */
export async function messagesById(server: TestServer, key: string, ids: readonly string[]): Promise<(Record<string, any> | undefined)[]> {
  const wanted = new Set(ids);
  const found = new Map<string, Record<string, any>>();
  let cursor: string | null = null;
  do {
    const res = await server.call('GET', `/v1/messages/history?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const m of res.body.data) if (wanted.has(m.id)) found.set(m.id, m);
    cursor = found.size < wanted.size ? res.body.next_cursor : null;
  } while (cursor);
  return ids.map((id) => found.get(id));
}
