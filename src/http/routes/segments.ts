// Segments: /v1/segments (saved rule sets with live counts), a segment's members, the rule schema
// and a preview that counts without saving. `schema` and `preview` are routes of their own, never
// read as an :id. Every count is computed when it is asked for (README "Segments").
import { z } from 'zod';
import { listCustomFields } from '../../../projections/custom-fields.ts';
import { findSegment, listSegments } from '../../../projections/segments.ts';
import { contactOut } from '../../contacts/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { EVENT_COUNT, OPERATORS, ruleSchema, type RuleFieldType, VALUE_TYPES, type ValueType } from '../../segments/rules.ts';
import {
  countEach, countMatching, createSegment, deleteSegment, matchingContacts, readModelSources, replaceSegment, type SegmentWrite, segmentOut, segmentView, validRules,
} from '../../segments/service.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, IdCursor, metadataOf, pageAfter, pageById, pageQuery } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';
import { ContactOut } from './contacts.ts';

const IdParams = z.object({ id: z.string().max(64) });

const Name = z.string().trim().min(1).max(200);
const Description = z.string().trim().max(2000).nullable();

// the rules are checked by the segments service (exact paths, the account's fields and lists);
// the documented shape is RuleSetDoc
const SegmentBody = z.strictObject({ name: Name, description: Description.optional(), rules: z.unknown() });
const PreviewBody = z.strictObject({ rules: z.unknown(), sample: z.boolean().optional() });

// (strict, as the service checks them: an unknown key is a 400)
const RuleDoc = z.strictObject({
  field: z.string().describe('contact.<field>, custom.<key>, list, tag, event.<name> or suppressed'),
  operator: z.string().describe('one of the field type’s operators (GET /v1/segments/schema)'),
  value: z.unknown().optional(),
  count: z.int().optional().describe('event rules only'),
  within_days: z.int().optional().describe('event rules only'),
});
// (recursive: a named schema, a component of the document that refers to itself)
const RuleSetDoc: z.ZodType = z
  .lazy(() => z.strictObject({ match: z.enum(['all', 'any']), rules: z.array(z.union([RuleDoc, RuleSetDoc])) }))
  .meta({ id: 'SegmentRuleSet', description: 'rules joined by match: all (and) or any (or); a rule set may hold rule sets' });
const SegmentDoc = z.strictObject({ name: Name, description: Description.optional(), rules: RuleSetDoc });

/** A segment as every answer shows it (segmentOut, segmentView), with its count at the time of the answer. */
const SegmentOut = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    rules: RuleSetDoc.describe('as stored: key order fixed, phone numbers in E.164'),
    count: z.int().describe('the contacts it matches now'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Segment', description: 'A saved rule set with its live count' });

const FIELD_TYPES = Object.keys(OPERATORS) as [RuleFieldType, ...RuleFieldType[]];
const VALUE_TYPE_NAMES = Object.keys(VALUE_TYPES) as [ValueType, ...ValueType[]];
/** GET /v1/segments/schema's answer (ruleSchema). */
const RuleSchemaOut = z
  .object({
    fields: z.array(
      z.object({
        field: z.string().describe('what a rule names: contact.<name>, custom.<key>, list, tag, event.<name> or suppressed'),
        label: z.string(),
        type: z.enum(FIELD_TYPES),
        options: z.array(z.string()).optional().describe('select fields only'),
        operators: z.array(
          z.object({
            operator: z.string(),
            value: z.enum(VALUE_TYPE_NAMES).describe('what its value must be (value_types)'),
            count: z.enum(['optional', 'required'] satisfies Exclude<(typeof EVENT_COUNT)[string], 'none'>[]).optional().describe('event operators that take a count'),
            within_days: z.literal('optional').optional().describe('event operators'),
          }),
        ),
      }),
    ),
    value_types: z.object(Object.fromEntries(VALUE_TYPE_NAMES.map((t) => [t, z.string()]))).describe('each value type, in words'),
    event_keys: z.object({ count: z.string(), within_days: z.string() }).describe('the keys an event rule takes besides value, in words'),
    limits: z.object({ max_depth: z.int(), max_rules: z.int(), max_in_values: z.int() }),
  })
  .meta({ id: 'SegmentRuleSchema', description: 'The fields a rule may name in this account, their operators and value types, and the limits of a rule set' });

const PreviewOut = z.object({
  count: z.int().describe('the contacts the rules match now'),
  sample: z.array(ContactOut).optional().describe('with sample: true, the first 10 of them by id'),
});

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
      operationId: 'getSegmentSchema',
      summary: 'The fields (standard, the account’s custom fields by type, list, tag, event, suppressed), their operators and value types',
      tags: ['segments'],
      responses: { 200: RuleSchemaOut },
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
      operationId: 'previewSegment',
      summary: 'Count the contacts a rule set matches now, without saving it (sample: true adds the first 10 by id)',
      tags: ['segments'],
      body: PreviewBody,
      docBody: z.strictObject({ rules: RuleSetDoc, sample: z.boolean().optional() }),
      responses: { 200: PreviewOut },
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
      operationId: 'listSegments',
      summary: 'List segments, newest first, each with its live count',
      tags: ['segments'],
      query: ListQuery,
      responses: { 200: Page(SegmentOut) },
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
      operationId: 'createSegment',
      summary: 'Create a segment',
      tags: ['segments'],
      body: SegmentBody,
      docBody: SegmentDoc,
      responses: { 201: SegmentOut.describe('the created segment, with its count') },
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
      operationId: 'getSegment',
      summary: 'Look up one segment, with its live count',
      tags: ['segments'],
      params: IdParams,
      responses: { 200: SegmentOut },
      async handler({ params, auth }) {
        const row = found(await findSegment(engage.pool, auth.accountId, params.id), 'segment');
        return segmentOut(row, await countMatching(engage.pool, auth.accountId, row.rules, engage.clock.now()));
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/segments/:id',
      auth: 'key_or_login',
      operationId: 'replaceSegment',
      summary: 'Replace a segment’s name, description and rules (a description left out is removed)',
      tags: ['segments'],
      params: IdParams,
      body: SegmentBody,
      docBody: SegmentDoc,
      responses: { 200: SegmentOut.describe('the segment as replaced, with its count') },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, body, auth, req }) {
        const write = await runCommand(engage, metadataOf(req), SEGMENTS, (metadata) => replaceSegment(engage, auth.accountId, params.id, body, metadata));
        return segmentAfter(engage, auth.accountId, write);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/segments/:id',
      auth: 'key_or_login',
      operationId: 'deleteSegment',
      summary: 'Delete a segment (its contacts are not touched)',
      tags: ['segments'],
      params: IdParams,
      responses: { 200: Deleted },
      errors: [409],
      async handler({ params, auth, req }) {
        await runCommand(engage, metadataOf(req), SEGMENTS, (metadata) => deleteSegment(engage, auth.accountId, params.id, metadata));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/segments/:id/contacts',
      auth: 'key_or_login',
      operationId: 'listSegmentContacts',
      summary: 'The contacts the segment matches now, in id order (oldest first)',
      tags: ['segments'],
      params: IdParams,
      query: ListQuery,
      responses: { 200: Page(ContactOut) },
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
