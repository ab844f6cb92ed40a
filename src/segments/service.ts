// Segment commands (create, replace, delete) with the validation of their rules, and the segment's
// members: counted and paged live over the read models by the compiled rules (src/segments/compile.ts).
//
// A write validates against the account's custom field definitions and lists as their own streams
// say (writes never read read models to decide); a preview, a read, asks the read models.
import { currentState } from '../eventstore/snapshots.ts';
import { listDecider, listStream } from '../../commands/list.ts';
import { type SegmentCommand, type SegmentGroup, type SegmentState, segmentDecider, segmentStream } from '../../commands/segment.ts';
import type { ContactRow } from '../../projections/contacts.ts';
import { listCustomFields } from '../../projections/custom-fields.ts';
import type { Db } from '../../projections/queries.ts';
import type { SegmentRow } from '../../projections/segments.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import type { Decider } from '../decider.ts';
import { loadDefinitions } from '../contacts/service.ts';
import { notFound, validationError, type Issue } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId, newId } from '../ids.ts';
import { compileRules, countSource } from './compile.ts';
import { checkRuleSet, type RuleFieldDefinition } from './rules.ts';

/** A segment as the API shows it, with its live count. */
export interface SegmentView {
  id: string;
  name: string;
  description: string | null;
  rules: SegmentGroup;
  count: number;
  created_at: string;
  updated_at: string;
}

export function segmentOut(r: SegmentRow, count: number): SegmentView {
  return {
    id: r.id, name: r.name, description: r.description, rules: r.rules, count, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

/** The view of a segment from its stream's state (when the read model has not caught up within the wait). */
export function segmentView(s: SegmentState, count: number): SegmentView {
  return {
    id: s.id!, name: s.name!, description: s.description ?? null, rules: s.rules!, count, created_at: s.createdAt ?? '', updated_at: s.updatedAt ?? s.createdAt ?? '',
  };
}

/** A stream's state as its decider folds it. */
async function foldStream<S>(engage: Engage, decider: Pick<Decider<never, S, never>, 'initialState' | 'evolve' | 'snapshot'>, streamId: string): Promise<S> {
  return (await currentState(engage.store, decider, streamId)).state;
}

/** Where validation reads what a rule set may name: the account's custom fields, and which of some list ids are its live lists. */
export interface RuleSources {
  definitions(): Promise<readonly RuleFieldDefinition[]>;
  liveLists(ids: readonly string[]): Promise<ReadonlySet<string>>;
}

/** The sources of a write: the custom-fields stream and each list's stream. */
export function streamSources(engage: Engage, accountId: string): RuleSources {
  return {
    definitions: () => loadDefinitions(engage, accountId),
    async liveLists(ids) {
      const live = new Set<string>();
      for (const id of ids) {
        const state = await foldStream(engage, listDecider, listStream(id));
        if (state.status === 'active' && state.accountId === accountId) live.add(id);
      }
      return live;
    },
  };
}

/** The sources of a read (preview): the custom_fields and lists read models. */
export function readModelSources(db: Db, accountId: string): RuleSources {
  return {
    definitions: () => listCustomFields(db, accountId),
    async liveLists(ids) {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM lists WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, ids]);
      return new Set(rows.map((r) => r.id));
    },
  };
}

/**
 * The rule set in its stored form, or a 400 validation_error naming every problem at its path
 * (an unknown custom key at `rules[i].field`, a list that is not the account's at `rules[i].value`).
 */
export async function validRules(input: unknown, sources: RuleSources): Promise<SegmentGroup> {
  const checked = checkRuleSet(input, await sources.definitions());
  const issues: Issue[] = [...checked.issues];
  if (checked.lists.length) {
    const live = await sources.liveLists([...new Set(checked.lists.map((l) => l.id))]);
    for (const l of checked.lists) if (!live.has(l.id)) issues.push({ path: l.path, message: `no list with id ${l.id}` });
  }
  if (issues.length || !checked.rules) throw validationError(`invalid rules: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  return checked.rules;
}

export interface SegmentWrite {
  id: string;
  state: SegmentState;
  position?: Position;
}

async function runSegmentCommand(engage: Engage, id: string, command: SegmentCommand, metadata: EventMetadata): Promise<SegmentWrite> {
  const result = await handleCommand(engage.store, segmentDecider, segmentStream(id), command, metadata);
  return { id, state: result.state, position: result.position };
}

export interface SegmentInput {
  name: string;
  description?: string | null;
  rules: unknown;
}

export async function createSegment(engage: Engage, accountId: string, input: SegmentInput, metadata: EventMetadata): Promise<SegmentWrite> {
  const rules = await validRules(input.rules, streamSources(engage, accountId));
  const id = newId('segment');
  return runSegmentCommand(engage, id, { type: 'CreateSegment', accountId, id, name: input.name, description: input.description ?? null, rules, now: engage.clock.now() }, metadata);
}

/** A full replace: a description left out is removed. */
export async function replaceSegment(engage: Engage, accountId: string, id: string, input: SegmentInput, metadata: EventMetadata): Promise<SegmentWrite> {
  // a string that is not a segment id can only be a 404: no stream to read; and a missing segment is
  // a 404 before its rules are looked at
  if (!isId('segment', id)) throw notFound('segment');
  const current = await foldStream(engage, segmentDecider, segmentStream(id));
  if (current.status !== 'active' || current.accountId !== accountId) throw notFound('segment');
  const rules = await validRules(input.rules, streamSources(engage, accountId));
  return runSegmentCommand(engage, id, { type: 'UpdateSegment', accountId, name: input.name, description: input.description ?? null, rules, now: engage.clock.now() }, metadata);
}

export function deleteSegment(engage: Engage, accountId: string, id: string, metadata: EventMetadata): Promise<SegmentWrite> {
  if (!isId('segment', id)) throw notFound('segment');
  return runSegmentCommand(engage, id, { type: 'DeleteSegment', accountId, now: engage.clock.now() }, metadata);
}

// ---------------------------------------------------------------------------------------------
// members, live

/**
 * How many of the account's contacts match the rules now: over the narrow segment_contacts when the
 * rules read only what it holds (README "Segments"), else over contacts.
 */
export async function countMatching(db: Db, accountId: string, rules: SegmentGroup, now: Date): Promise<number> {
  const source = countSource(rules);
  const q = compileRules(rules, { accountId, now }, source);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${source} c WHERE c.account_id = $1 AND ${q.where}`, q.params);
  return Number(rows[0]!.n);
}

export interface MemberPage {
  /** only contacts with a greater id */
  after?: string;
  limit: number;
  /** the time relative rules count from (default: the system clock) */
  now?: Date;
  /** contacts looked at in the first window (default: 4 × limit, at least 1,000) */
  firstWindow?: number;
}

/** Contacts a page looks at first, at least (it looks at four times more each time it has not found enough). */
const FIRST_WINDOW = 1_000;

/**
 * The contacts matching the rules after `page.after`, in id order, at most `page.limit`. Read window
 * by window of the account's contacts in id order (a range of the (account_id, id) index), each four
 * times the last while the page is short: a query that asked Postgres for "the first n matches in id
 * order" at once would be planned on its estimate of how many contacts match, which it cannot know
 * for custom fields and guesses far too low, and then sort the whole account for every page. Windows
 * cost a page of a broad segment a window or two, and the pages of a sparse one a few scans in all.
 */
async function matchingPage<R extends { id: string }>(db: Db, columns: string, accountId: string, rules: SegmentGroup, page: MemberPage): Promise<R[]> {
  const q = compileRules(rules, { accountId, now: page.now ?? new Date() });
  const found: R[] = [];
  let after = page.after ?? '';
  for (let window = page.firstWindow ?? Math.max(FIRST_WINDOW, page.limit * 4); ; window *= 4) {
    // the last contact of this window, or none when fewer are left: the rest is the last window
    const { rows: bound } = await db.query<{ id: string }>('SELECT id FROM contacts WHERE account_id = $1 AND id > $2 ORDER BY id OFFSET $3 LIMIT 1', [
      accountId, after, window - 1,
    ]);
    const upTo = bound[0]?.id;
    const params = [...q.params, after, page.limit - found.length];
    let range = `c.id > $${params.length - 1}`;
    if (upTo !== undefined) {
      params.push(upTo);
      range += ` AND c.id <= $${params.length}`;
    }
    const { rows } = await db.query<R>(
      `SELECT ${columns} FROM contacts c WHERE c.account_id = $1 AND ${range} AND ${q.where} ORDER BY c.id LIMIT $${q.params.length + 2}`,
      params,
    );
    found.push(...rows);
    if (found.length >= page.limit || upTo === undefined) return found;
    after = upTo;
  }
}

/** A page of the contacts matching the rules, in id order (oldest first), after `page.after`. */
export const matchingContacts = (db: Db, accountId: string, rules: SegmentGroup, page: MemberPage) => matchingPage<ContactRow>(db, 'c.*', accountId, rules, page);

/**
 * Keyset pages of the ids of the contacts matching a segment's rules, in id order: what a campaign
 * walks to resolve its audience (`after` = the last id of the page before).
 */
/**
 * A page of the matching contacts' ids and addresses: what a campaign to the segment sends to.
 * `columns`: more of them (a push campaign's asks whether each contact has a device), over `c`.
 */
export const matchingAddresses = <R extends object = object>(db: Db, accountId: string, rules: SegmentGroup, page: MemberPage, columns: readonly string[] = []) =>
  matchingPage<{ id: string; email: string | null; phone: string | null } & R>(db, ['c.id', 'c.email', 'c.phone', ...columns].join(', '), accountId, rules, page);

export async function segmentContactIds(db: Db, accountId: string, rules: SegmentGroup, page: MemberPage): Promise<string[]> {
  return (await matchingPage<{ id: string }>(db, 'c.id', accountId, rules, page)).map((r) => r.id);
}

/** Counts for several segments, a few at a time (each is a query over the account's contacts). */
export async function countEach(db: Db, accountId: string, segments: readonly { rules: SegmentGroup }[], now: Date, concurrency = 4): Promise<number[]> {
  const counts: number[] = new Array(segments.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, segments.length) }, async () => {
      for (let i = next++; i < segments.length; i = next++) counts[i] = await countMatching(db, accountId, segments[i]!.rules, now);
    }),
  );
  return counts;
}
