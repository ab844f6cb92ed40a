// Segments: /v1/segments (saved rule sets with live counts), a segment's members, the rule schema
// and a preview that counts without saving. `schema` and `preview` are routes of their own, never
// read as an :id. Every count is computed when it is asked for (README "Segments").
import { z } from 'zod';
import { listCustomFields } from '../../../projections/custom-fields.ts';
import { findSegment, listSegments } from '../../../projections/segments.ts';
import { contactOut } from '../../contacts/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { ruleSchema } from '../../segments/rules.ts';
import {
  countEach, countMatching, createSegment, deleteSegment, matchingContacts, readModelSources, replaceSegment, type SegmentWrite, segmentOut, segmentView, validRules,
} from '../../segments/service.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, IdCursor, metadataOf, pageAfter, pageById, pageQuery } from '../common.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const IdParams = z.object({ id: z.string().max(64) });

const Name = z.string().trim().min(1).max(200);
const Description = z.string().trim().max(2000).nullable();

// the rules are checked by the segments service (exact paths, the account's fields and lists);
// the documented shape is RuleSetDoc
const SegmentBody = z.strictObject({ name: Name, description: Description.optional(), rules: z.unknown() });
const PreviewBody = z.strictObject({ rules: z.unknown(), sample: z.boolean().optional() });

const RuleDoc = z.object({
  field: z.string().describe('contact.<field>, custom.<key>, list, tag, event.<name> or suppressed'),
  operator: z.string().describe('one of the field type’s operators (GET /v1/segments/schema)'),
  value: z.unknown().optional(),
  count: z.int().optional().describe('event rules only'),
  within_days: z.int().optional().describe('event rules only'),
});
// (recursive: a named schema, a component of the document that refers to itself)
const RuleSetDoc: z.ZodType = z
  .lazy(() => z.object({ match: z.enum(['all', 'any']), rules: z.array(z.union([RuleDoc, RuleSetDoc])) }))
  .meta({ id: 'SegmentRuleSet', description: 'rules joined by match: all (and) or any (or); a rule set may hold rule sets' });
const SegmentDoc = z.object({ name: Name, description: Description.optional(), rules: RuleSetDoc });

const ListQuery = z.strictObject({ ...pageQuery });

/** The read models a write's response waits for. */
const SEGMENTS = ['segments'];

/** Contacts shown with a preview when it asks for a sample. */
const SAMPLE_SIZE = 10;

/** The segment as the read model shows it after a write, with its count; the stream's view if the read model is late. */
async function segmentAfter(engage: Engage, accountId: string, write: SegmentWrite) {
  const row = await findSegment(engage.pool, accountId, write.id);
  const rules = row?.rules ?? write.state.rules!;
  const count = await countMatching(engage.pool, accountId, rules, engage.clock.now());
  return row ? segmentOut(row, count) : segmentView(write.state, count);
}

export function segmentRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/segments/schema',
      auth: 'key_or_login',
      summary: 'The fields (standard, the account’s custom fields by type, list, tag, event, suppressed), their operators and value types',
      tags: ['segments'],
      async handler({ auth }) {
        return ruleSchema(await listCustomFields(engage.pool, auth.accountId));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/segments/preview',
      auth: 'key_or_login',
      // a count: reading, not writing
      scope: 'read',
      summary: 'Count the contacts a rule set matches now, without saving it (sample: true adds the first 10 by id)',
      tags: ['segments'],
      body: PreviewBody,
      docBody: z.object({ rules: RuleSetDoc, sample: z.boolean().optional() }),
      async handler({ body, auth }) {
        const rules = await validRules(body.rules, readModelSources(engage.pool, auth.accountId));
        const now = engage.clock.now();
        if (!body.sample) return { count: await countMatching(engage.pool, auth.accountId, rules, now) };
        const [count, sample] = await Promise.all([
          countMatching(engage.pool, auth.accountId, rules, now),
          matchingContacts(engage.pool, auth.accountId, rules, { limit: SAMPLE_SIZE, now }),
        ]);
        return { count, sample: sample.map(contactOut) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/segments',
      auth: 'key_or_login',
      summary: 'List segments, newest first, each with its live count',
      tags: ['segments'],
      query: ListQuery,
      async handler({ query, auth }) {
        const rows = await pageById(query, (range) => listSegments(engage.pool, auth.accountId, range), (r) => r);
        const counts = await countEach(engage.pool, auth.accountId, rows.data, engage.clock.now());
        return { data: rows.data.map((r, i) => segmentOut(r, counts[i]!)), next_cursor: rows.next_cursor };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/segments',
      auth: 'key_or_login',
      summary: 'Create a segment',
      tags: ['segments'],
      body: SegmentBody,
      docBody: SegmentDoc,
      responses: { 201: 'the created segment, with its count' },
      async handler({ body, auth, req, reply }) {
        const write = await runCommand(engage, metadataOf(req), SEGMENTS, (metadata) => createSegment(engage, auth.accountId, body, metadata));
        reply.code(201);
        return segmentAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/segments/:id',
      auth: 'key_or_login',
      summary: 'Look up one segment, with its live count',
      tags: ['segments'],
      params: IdParams,
      async handler({ params, auth }) {
        const row = found(await findSegment(engage.pool, auth.accountId, params.id), 'segment');
        return segmentOut(row, await countMatching(engage.pool, auth.accountId, row.rules, engage.clock.now()));
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/segments/:id',
      auth: 'key_or_login',
      summary: 'Replace a segment’s name, description and rules (a description left out is removed)',
      tags: ['segments'],
      params: IdParams,
      body: SegmentBody,
      docBody: SegmentDoc,
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), SEGMENTS, (metadata) => replaceSegment(engage, auth.accountId, params.id, body, metadata));
        return segmentAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/segments/:id',
      auth: 'key_or_login',
      summary: 'Delete a segment (its contacts are not touched)',
      tags: ['segments'],
      params: IdParams,
      responses: { 200: Deleted },
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), SEGMENTS, (metadata) => deleteSegment(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/segments/:id/contacts',
      auth: 'key_or_login',
      summary: 'The contacts the segment matches now, in id order (oldest first)',
      tags: ['segments'],
      params: IdParams,
      query: ListQuery,
      async handler({ params, query, auth }) {
        const segment = found(await findSegment(engage.pool, auth.accountId, params.id), 'segment');
        return pageAfter(
          query,
          IdCursor,
          (after, limit) => matchingContacts(engage.pool, auth.accountId, segment.rules, { limit, now: engage.clock.now(), ...(after ? { after: after.id } : {}) }),
          contactOut,
          (c) => ({ id: c.id }),
        );
      },
    }),
  ];
}
