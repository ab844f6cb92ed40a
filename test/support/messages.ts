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
