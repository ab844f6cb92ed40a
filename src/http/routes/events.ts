// Tracked events: POST /v1/events (README "Events").
import { z } from 'zod';
import { runCommand } from '../../command-handler.ts';
import { describeIssues, validationError } from '../../errors.ts';
import { trackEvents, type TrackResult } from '../../events/service.ts';
import { MAX_EVENTS, TrackedEventBody, type ValidEvent, validateEvent } from '../../events/validation.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf } from '../common.ts';
import { type AnyRoute, defineRoute, parseWith } from '../route.ts';

/** When it answers, the contacts it created or changed and the events it stored are readable. */
const EVENTS_WAIT_FOR = ['contacts', 'contact_events'];

const EventList = z.array(z.unknown()).min(1, 'send at least one event').max(MAX_EVENTS, `at most ${MAX_EVENTS} events per request`);
const EventsEnvelope = z.strictObject({ events: EventList });

/** An event's problem (failed), as POST /v1/events and POST /v1/track report it per event. */
export const EventFailure = z.object({
  index: z.int().describe('its place in the request, from 0'),
  status: z.literal('failed'),
  error: z.string().describe('the error code it would have as a request of its own: validation_error, not_found, conflict, …'),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('each invalid field (validation_error)'),
});

const EventResult = z
  .union([
    z.object({
      index: z.int().describe('its place in the request, from 0'),
      status: z.enum(['accepted', 'duplicate']).describe('duplicate: an event with this id was stored before; nothing more is stored'),
      id: z.string().describe('the event id: the one sent, or one made for it'),
      contact_id: z.string(),
    }),
    EventFailure,
  ])
  .meta({ id: 'TrackedEventResult', description: 'The outcome of one event of the request' });

const TrackAnswer = z.object({
  accepted: z.int(),
  duplicates: z.int(),
  failed: z.int(),
  results: z.array(EventResult).describe('one per event, in the order sent'),
});

const NOT_EVENTS = 'the body must be an event object, {"events": [...]} or an array of events';

/** The events of a body: one event object, {events: [...]}, or a bare array. */
function eventsIn(body: unknown): unknown[] {
  if (Array.isArray(body)) return parseWith(EventList, body, 'body');
  if (body === null || typeof body !== 'object') throw validationError(NOT_EVENTS, [{ path: '(body)', message: NOT_EVENTS }]);
  if (Object.hasOwn(body, 'events')) return parseWith(EventsEnvelope, body, 'body').events;
  return [body];
}

export function eventRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/events',
      auth: 'key',
      operationId: 'trackEvents',
      summary: 'Track what contacts did: one event, {events: [...]} or an array of up to 1,000; unknown contacts identified by email or phone are created',
      tags: ['events'],
      docBody: z.union([TrackedEventBody, z.array(TrackedEventBody).max(MAX_EVENTS), z.strictObject({ events: z.array(TrackedEventBody).max(MAX_EVENTS) })]),
      responses: { 200: TrackAnswer.describe('each event accepted, a duplicate, or failed with its error (a failed event does not fail the others)') },
      async handler({ body, auth, req }) {
        const items = eventsIn(body);
        const results: TrackResult[] = new Array(items.length);
        const valid: { index: number; event: ValidEvent }[] = [];
        items.forEach((item, index) => {
          const v = validateEvent(item);
          if (v.ok) valid.push({ index, event: v.value });
          else results[index] = { index, status: 'failed', error: 'validation_error', message: describeIssues(v.issues), issues: v.issues };
        });
        if (valid.length > 0) {
          const tracked = await runCommand(engage, metadataOf(req), EVENTS_WAIT_FOR, (metadata) => trackEvents(engage, auth.accountId, valid, metadata));
          for (const r of tracked.results) results[r.index] = r;
        }
        const count = (status: TrackResult['status']) => results.filter((r) => r.status === status).length;
        return { accepted: count('accepted'), duplicates: count('duplicate'), failed: count('failed'), results };
      },
    }),
  ];
}
