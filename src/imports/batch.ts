// Applying one batch of an import's rows, all or nothing: the rows are matched to existing contacts
// (email, then phone, then external_id), merged where they name the same contact (later non-empty
// values win), decided with the contact decider (CreateContact / UpdateContact) and, for a list
// import, the list decider (AddListMember), and everything the batch decided — the contacts' events,
// the list's and the ImportBatchApplied that moves the import past these rows — is appended in ONE
// appendMany: on postgres one transaction, so a crash leaves the whole batch or none of it, and the
// import stream's expected revision keeps a second runner from applying it again.
//
// Existing contacts are found by their claims (unique_claims: authoritative for email and phone) and
// by external_id through the contacts read model — the one read-model read of this write path, done
// once that read model shows this import's earlier batches when they may hold the same external id
// (a Bloom filter of the run's external ids says when). New emails and phones
// are claimed for the batch at once (claimMany) and given back when the append is refused. A new
// contact's id is derived from the import and its row, so a batch retried after a crash (or after
// an append whose outcome was lost) owns the claims its first attempt took.
import { createHash } from 'node:crypto';
import { type ContactCommand, type ContactEvent, type ContactFields, type ContactState, contactDecider, contactStream } from '../../commands/contact.ts';
import type { FieldDefinition } from '../../commands/custom-fields.ts';
import { type ImportAcceptedData, type ImportEvent, type ImportRowError, type ImportState, importDecider, importStream } from '../../commands/import.ts';
import { type ListEvent, type ListState, listDecider, listStream } from '../../commands/list.ts';
import { contactIdsByExternalId } from '../../projections/contacts.ts';
import { type ClaimHolder, type ClaimRequest, claimFree, claimIsFresh, claimMany, releaseMany, transferMany } from '../claims.ts';
import { CLAIM_IN_FLIGHT_MS, contactClaimKind } from '../contacts/service.ts';
import type { Engage } from '../context.ts';
import { fold } from '../decider.ts';
import { AppError } from '../errors.ts';
import { type EventMetadata, type ExpectedRevision, type NewEvent, type Position, WrongExpectedVersionError, comparePositions } from '../eventstore/port.ts';
import { PersonalDataStore } from '../personal-data/store.ts';
import type { ReadRow, RowValues } from './rows.ts';

/** A stream's state as folded, and the revision to append at. */
export interface Folded<S> {
  state: S;
  revision: bigint | 'no_stream';
}

/** A data row of the batch: its row number as a spreadsheet shows it (header = 1), and what it reads as. */
export interface BatchRow {
  row: number;
  read: ReadRow;
}

export interface Batch {
  /** the last data record (1-based, header excluded) the batch covers, blank ones included */
  rowsThrough: number;
  rows: BatchRow[];
}

/** What a run keeps between its batches. */
export interface ImportRun {
  engage: Engage;
  accepted: ImportAcceptedData;
  /** the metadata every event of the import carries (who uploaded it) */
  metadata: EventMetadata;
  import: Folded<ImportState>;
  list?: Folded<ListState>;
  definitions: FieldDefinition[];
  /** the newest position this run appended at (external ids are looked up once the read model has it) */
  written?: Position;
  /** the external ids this run has written, as far as a Bloom filter knows them (created with the run) */
  externalIds?: SeenValues;
  /** the header of the column of each field (`email`, `custom_fields.plan`): a row error names the column */
  columnOf: ReadonlyMap<string, string>;
}

/** The batch could not be applied now (a conflicting write, a claim in flight): try it again shortly. */
export class BatchRetry extends Error {}
/** Another runner moved the import: this run stops. */
export class ImportMoved extends Error {}
/** The list of a list import is gone: the import fails. */
export class ListGone extends Error {}

// ─── contact ids ─────────────────────────────────────────────────────────────────────────────────

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const base32 = (n: bigint, chars: number) => {
  let s = '';
  for (let i = 0; i < chars; i++) {
    s = CROCKFORD[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return s;
};

/**
 * The ids of the contacts the rows of an import create: a ULID whose time is the import's acceptance
 * and whose 80 random bits are the row number (32 bits: imported contacts sort in file order) and 48
 * bits of a hash of the import id. The same row of the same import always makes the same id.
 */
export function contactIdsOf(importId: string, acceptedAtMs: number): (row: number) => string {
  const hash = BigInt(`0x${createHash('sha256').update(importId).digest('hex').slice(0, 12)}`);
  const time = base32(BigInt(acceptedAtMs), 10);
  return (row) => `ct_${time}${base32((BigInt(row) << 48n) | hash, 16)}`;
}

// ─── helpers ─────────────────────────────────────────────────────────────────────────────────────

/**
 * A Bloom filter of strings (1 MiB, 3 hashes: about 3% false positives after a million values): the
 * external ids a run has written, so that a batch waits for the contacts read model only when one
 * of its external ids may be one this run wrote before (a duplicate within the file).
 */
export class SeenValues {
  private readonly bits = new Uint8Array(1 << 20);

  private *positions(value: string) {
    // FNV-1a, and a second hash from it (double hashing)
    let h = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
    const h2 = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) | 1;
    for (let k = 0; k < 3; k++) yield ((h + k * h2) >>> 0) % (this.bits.length * 8);
  }

  add(value: string): void {
    for (const p of this.positions(value)) this.bits[p >>> 3] |= 1 << (p & 7);
  }

  mightHave(value: string): boolean {
    for (const p of this.positions(value)) if ((this.bits[p >>> 3] & (1 << (p & 7))) === 0) return false;
    return true;
  }
}

// ─── reading contacts ────────────────────────────────────────────────────────────────────────────

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function loadContacts(engage: Engage, ids: readonly string[]): Promise<Map<string, Folded<ContactState>>> {
  const loaded = await mapLimit(ids, 16, async (id) => {
    const events = await engage.store.readStream(contactStream(id));
    const state = fold(contactDecider, events.map((e) => ({ type: e.type, data: e.data }) as ContactEvent));
    return [id, { state, revision: events.length ? events[events.length - 1].revision : 'no_stream' }] as const;
  });
  return new Map(loaded);
}

const live = (s: ContactState, accountId: string) => s.status === 'active' && s.accountId === accountId;

/** The contact a batch writes: a new one, or an existing one it updates; with the rows merged into it. */
interface Target {
  id: string;
  existing?: Folded<ContactState>;
  rows: number[];
  fields: Omit<ContactFields, 'tags'>;
  tags: Set<string>;
  custom: Record<string, unknown>;
}

function merge(t: Target, v: RowValues, row: number) {
  t.rows.push(row);
  Object.assign(t.fields, v.fields);
  Object.assign(t.custom, v.custom);
  for (const tag of v.tags) t.tags.add(tag);
}

// ─── the batch ───────────────────────────────────────────────────────────────────────────────────

export interface AppliedBatch {
  imported: number;
  updated: number;
  failed: number;
}

/**
 * Applies one batch (see the top of this file) and moves `run` past it. Throws BatchRetry when it
 * should be tried again, ImportMoved when another runner applied it, ListGone when the list was
 * deleted; anything else (the database) is the caller's to retry later.
 */
export async function applyBatch(run: ImportRun, batch: Batch): Promise<AppliedBatch> {
  const { engage, accepted } = run;
  const accountId = accepted.account_id;
  const idOf = contactIdsOf(accepted.id, Date.parse(accepted.created_at));
  const errors: ImportRowError[] = [];
  const valid: { row: number; values: RowValues }[] = [];
  for (const r of batch.rows) {
    if ('problems' in r.read) for (const p of r.read.problems) errors.push({ row: r.row, column: p.column, message: p.message });
    else valid.push({ row: r.row, values: r.read.values });
  }
  const failedRows = new Set(errors.map((e) => e.row));
  const ownIds = new Set(valid.map((r) => idOf(r.row)));

  // ── who holds the batch's emails and phones now. A value nobody holds is claimed at once, for the
  // contact the first row that has it would make (a new contact's value, in a new import nearly every
  // one): one statement finds it free and takes it, where a read of its holder and then a claim took
  // two. Which contact ends up with it is known only further down: there the claim goes to that
  // contact, and one no contact of the batch ends up with is given back. Only values held already are
  // read (README "Contacts import").
  const firstRows = (f: 'email' | 'phone') => {
    const owners = new Map<string, string>();
    for (const r of valid) {
      const v = r.values.fields[f];
      if (v && !owners.has(v)) owners.set(v, idOf(r.row));
    }
    return [...owners].map(([value, owner]) => ({ value, owner }));
  };
  const [emailClaims, phoneClaims] = await Promise.all(
    (['email', 'phone'] as const).map((f) => claimFree(engage.pool, { accountId, kind: contactClaimKind(f) }, firstRows(f))),
  );
  /** the claims taken up front, as `kind\0value` → owner */
  const upFront = new Map<string, ClaimRequest>();
  for (const [f, claimed] of [['email', emailClaims], ['phone', phoneClaims]] as const) {
    for (const value of claimed.taken) {
      const kind = contactClaimKind(f);
      upFront.set(claimRef({ kind, value }), { kind, value, ownerId: claimed.holders.get(value)!.owner });
    }
  }
  try {
    return await decideAndAppend(run, batch, { valid, errors, failedRows, ownIds, idOf, emailHolders: emailClaims.holders, phoneHolders: phoneClaims.holders, upFront });
  } catch (err) {
    if (err instanceof KeepClaims) throw err.error;
    // nothing of the batch was written: the claims taken up front are given back
    await releaseMany(engage.pool, accountId, [...upFront.values()]).catch(() => undefined);
    throw err;
  }
}

/** What applyBatch has found out before it decides: the batch's rows and who holds their values. */
interface Claimed {
  valid: { row: number; values: RowValues }[];
  errors: ImportRowError[];
  failedRows: Set<number>;
  /** the contact ids the batch's rows would make */
  ownIds: Set<string>;
  idOf: (row: number) => string;
  emailHolders: Map<string, ClaimHolder>;
  phoneHolders: Map<string, ClaimHolder>;
  /** the claims applyBatch took up front, by `kind\0value` */
  upFront: Map<string, ClaimRequest>;
}

/** A failure after which the batch's claims stay (its append's outcome is unknown, or another runner applied it): `error` is what to throw. */
class KeepClaims extends Error {
  constructor(readonly error: unknown) {
    super('the batch keeps its claims');
  }
}

/** A claim's key in the maps of a batch. */
const claimRef = (c: { kind: string; value: string }) => `${c.kind}\u0000${c.value}`;

/** The rest of applyBatch: each row to its contact, the deciders, the claims, the one append. */
async function decideAndAppend(run: ImportRun, batch: Batch, c: Claimed): Promise<AppliedBatch> {
  const { engage, accepted } = run;
  const accountId = accepted.account_id;
  const { valid, errors, failedRows, ownIds, idOf, emailHolders, phoneHolders, upFront } = c;
  const owners = new Set<string>();
  for (const holders of [emailHolders, phoneHolders]) for (const h of holders.values()) if (!ownIds.has(h.owner)) owners.add(h.owner);
  const contacts = await loadContacts(engage, [...owners]);
  const existingBy = (field: 'email' | 'phone', holders: Map<string, ClaimHolder>) => {
    const found = new Map<string, string>();
    for (const [value, h] of holders) {
      // our own claim from an attempt at this batch that never appended: ours to take again
      if (ownIds.has(h.owner)) continue;
      const c = contacts.get(h.owner)!;
      if (live(c.state, accountId) && c.state.fields[field] === value) found.set(value, h.owner);
      // a create or update of that value in flight right now: its contact is not there yet
      else if (h.ageMs < CLAIM_IN_FLIGHT_MS && c.revision === 'no_stream') throw new BatchRetry(`a ${field} of the batch is being written by another request`);
    }
    return found;
  };
  const byEmail = existingBy('email', emailHolders);
  const byPhone = existingBy('phone', phoneHolders);

  // ── external ids not matched otherwise: the contacts read model, once it shows this run's writes
  const unmatched = valid.filter((r) => !(r.values.fields.email && byEmail.has(r.values.fields.email)) && !(r.values.fields.phone && byPhone.has(r.values.fields.phone)));
  const externalIds = [...new Set(unmatched.map((r) => r.values.fields.external_id).filter((v): v is string => !!v))];
  const byExternal = new Map<string, string>();
  if (externalIds.length) {
    // an external id this run may have written in an earlier batch: the read model must show that batch first
    const mine = run.written !== undefined && externalIds.some((x) => run.externalIds?.mightHave(x) ?? true);
    if (mine && !(await engage.runner.waitFor(['contacts'], run.written!, 60_000))) throw new BatchRetry('the contacts read model is behind this import');
    const found = await contactIdsByExternalId(engage.pool, accountId, externalIds);
    const more = await loadContacts(engage, [...new Set([...found.values()].flat())].filter((id) => !contacts.has(id)));
    for (const [id, c] of more) contacts.set(id, c);
    for (const [externalId, ids] of found) {
      // the lowest live contact id that still has it
      const id = ids.find((i) => live(contacts.get(i)!.state, accountId) && contacts.get(i)!.state.fields.external_id === externalId);
      if (id !== undefined) byExternal.set(externalId, id);
    }
  }

  // ── every valid row to its contact, in file order
  const targets = new Map<string, Target>();
  const inBatch = { email: new Map<string, Target>(), phone: new Map<string, Target>(), external_id: new Map<string, Target>() };
  const existingTarget = (id: string | undefined): Target | undefined => {
    if (id === undefined) return undefined;
    let t = targets.get(id);
    if (!t) targets.set(id, (t = { id, existing: contacts.get(id)!, rows: [], fields: {}, tags: new Set(), custom: {} }));
    return t;
  };
  const holderOf = (field: 'email' | 'phone' | 'external_id', value: string | null | undefined) => {
    if (!value) return undefined;
    const existing = field === 'email' ? byEmail : field === 'phone' ? byPhone : byExternal;
    return inBatch[field].get(value) ?? existingTarget(existing.get(value));
  };
  for (const { row, values } of valid) {
    const f = values.fields;
    const target = holderOf('email', f.email) ?? holderOf('phone', f.phone) ?? holderOf('external_id', f.external_id);
    if (target) {
      const clash = (['email', 'phone'] as const).find((field) => {
        const other = holderOf(field, f[field]);
        return other !== undefined && other !== target;
      });
      if (clash) {
        errors.push({ row, column: run.columnOf.get(clash) ?? null, message: `another contact has this ${clash === 'phone' ? 'phone number' : 'email'}` });
        failedRows.add(row);
        continue;
      }
    }
    let t = target;
    if (!t) targets.set((t = { id: idOf(row), rows: [], fields: {}, tags: new Set<string>(), custom: {} }).id, t);
    merge(t, values, row);
    for (const field of ['email', 'phone', 'external_id'] as const) if (f[field]) inBatch[field].set(f[field]!, t);
  }

  // ── decide each contact (and its membership) with the deciders
  const now = engage.clock.now();
  const streams: { streamId: string; events: NewEvent[]; expected: ExpectedRevision }[] = [];
  const listEvents: ListEvent[] = [];
  const claims: ClaimRequest[] = [];
  const released: ClaimRequest[] = [];
  let imported = 0;
  let updated = 0;
  const meta = run.metadata;
  for (const t of targets.values()) {
    if (t.rows.length === 0) continue;
    const state = t.existing?.state ?? contactDecider.initialState;
    const tags = [...t.tags];
    let command: ContactCommand;
    if (!t.existing) {
      command = { type: 'CreateContact', accountId, id: t.id, fields: { ...t.fields, ...(tags.length ? { tags } : {}) }, custom: t.custom, definitions: run.definitions, now };
    } else {
      const had = state.fields.tags ?? [];
      const union = [...new Set([...had, ...tags])];
      command = { type: 'UpdateContact', accountId, changes: { ...t.fields, ...(union.length > had.length ? { tags: union } : {}) }, custom: t.custom, definitions: run.definitions, now };
    }
    let events: ContactEvent[];
    try {
      events = contactDecider.decide(command, state);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const issues = (err.extra.issues as { path: string; message: string }[] | undefined) ?? [{ path: '', message: err.message }];
      for (const row of t.rows) {
        for (const i of issues) errors.push({ row, column: run.columnOf.get(i.path) ?? null, message: i.message });
        failedRows.add(row);
      }
      continue;
    }
    if (events.length) streams.push({ streamId: contactStream(t.id), events: events.map((e) => ({ ...e, metadata: meta })), expected: t.existing ? t.existing.revision : 'no_stream' });
    for (const field of ['email', 'phone'] as const) {
      const value = t.fields[field];
      if (value && state.fields[field] !== value) {
        claims.push({ kind: contactClaimKind(field), value, ownerId: t.id });
        const old = state.fields[field];
        if (old) released.push({ kind: contactClaimKind(field), value: old, ownerId: t.id });
      }
    }
    if (t.existing) updated += t.rows.length;
    else {
      imported += 1;
      updated += t.rows.length - 1;
    }
    if (run.list) {
      try {
        listEvents.push(...listDecider.decide({ type: 'AddListMember', accountId, contactId: t.id, contactExists: true, now }, run.list.state));
      } catch (err) {
        if (err instanceof AppError && err.statusCode === 404) throw new ListGone('the list was deleted');
        throw err;
      }
    }
  }
  if (run.list && listEvents.length) {
    streams.push({ streamId: listStream(accepted.list_id!), events: listEvents.map((e) => ({ ...e, metadata: meta })), expected: run.list.revision });
  }
  errors.sort((a, b) => a.row - b.row);
  const counts = { imported, updated, failed: failedRows.size };
  const importEvents: ImportEvent[] = importDecider.decide(
    { type: 'ApplyImportBatch', accountId, rowsThrough: batch.rowsThrough, ...counts, errors, now },
    run.import.state,
  );
  streams.push({ streamId: importStream(accepted.id), events: importEvents.map((e) => ({ ...e, metadata: meta })), expected: run.import.revision });

  // ── claim the new values, append everything at once, give the claims back if that fails. The
  // contacts' personal data is sealed meanwhile (its keys read or made, and the AES of every event:
  // the store leaves sealed events as they are), so that work overlaps the claims' statement instead
  // of following it. A key made for a batch that is then refused is the same contact's key when the
  // batch is tried again (its contact ids are derived from the import and the row).
  //
  // A claim taken up front stays where the contact that gets the value is the one its row would make,
  // goes over to the contact that gets it where that is another (an existing contact, or the contact
  // an earlier row of the batch makes), and is given back where no contact of the batch gets it (its
  // row failed, a later row changed the value, or the contact had it already).
  const sealing = engage.store instanceof PersonalDataStore ? engage.store.seal(streams) : Promise.resolve(streams);
  sealing.catch(() => undefined);
  const toClaim: ClaimRequest[] = [];
  const moves = new Map<string, { value: string; from: string; to: string }[]>();
  const wanted = new Set<string>();
  for (const request of claims) {
    const key = claimRef(request);
    const early = upFront.get(key);
    if (!early) {
      toClaim.push(request);
      continue;
    }
    wanted.add(key);
    if (early.ownerId === request.ownerId) continue;
    const ofKind = moves.get(request.kind) ?? [];
    ofKind.push({ value: request.value, from: early.ownerId, to: request.ownerId });
    moves.set(request.kind, ofKind);
  }
  const unneeded = [...upFront].filter(([key]) => !wanted.has(key)).map(([, request]) => request);
  // what this call took beyond the claims taken up front (those are given back by applyBatch)
  const taken: ClaimRequest[] = [];
  let movedAll = true;
  for (const [kind, ofKind] of moves) {
    const moved = await transferMany(engage.pool, { accountId, kind }, ofKind);
    for (const m of ofKind) {
      if (moved.has(m.value)) taken.push({ kind, value: m.value, ownerId: m.to });
      else movedAll = false;
    }
  }
  const claimed = await claimMany(engage.pool, accountId, toClaim, async (owner, request) => {
    if (ownIds.has(owner)) return false;
    const [c] = (await loadContacts(engage, [owner])).values();
    if (live(c.state, accountId) && c.state.fields[request.kind === contactClaimKind('email') ? 'email' : 'phone'] === request.value) return true;
    return c.revision === 'no_stream' && (await claimIsFresh(engage.pool, { accountId, kind: request.kind }, request.value, owner, CLAIM_IN_FLIGHT_MS));
  });
  taken.push(...claimed.taken);
  let sealed;
  try {
    sealed = await sealing;
  } catch (err) {
    await releaseMany(engage.pool, accountId, taken).catch(() => undefined);
    throw err;
  }
  if (claimed.refused.size > 0 || !movedAll) {
    await releaseMany(engage.pool, accountId, taken);
    throw new BatchRetry('another request took a value of the batch meanwhile');
  }
  let results;
  try {
    results = await engage.store.appendMany(sealed);
  } catch (err) {
    if (!(err instanceof WrongExpectedVersionError)) {
      // the outcome may be unknown (the connection was lost): the claims stay, owned by this batch's
      // contact ids, which a retry of the batch owns again and which are stale if it never lands
      throw new KeepClaims(err);
    }
    // another runner applied the batch: the claims are its contacts' (the same ids) now
    if (err.streamId === importStream(accepted.id)) throw new KeepClaims(new ImportMoved(err.message));
    // another write moved a contact or the list: nothing of the batch was written
    await releaseMany(engage.pool, accountId, taken).catch(() => undefined);
    throw new BatchRetry(err.message);
  }
  // values the updated contacts no longer hold, and claims taken up front that no contact got. The
  // batch is written: a failure here must not give back the claims its contacts now hold
  try {
    await releaseMany(engage.pool, accountId, [...released, ...unneeded]);
  } catch (err) {
    throw new KeepClaims(err);
  }

  // ── the run moves on: its import and list states, and where it wrote
  const last = results[results.length - 1];
  for (const r of results) if (!run.written || comparePositions(r.position, run.written) > 0) run.written = r.position;
  for (const t of targets.values()) if (t.rows.length && t.fields.external_id) run.externalIds?.add(t.fields.external_id);
  run.import = { state: importEvents.reduce(importDecider.evolve, run.import.state), revision: last.nextExpectedRevision };
  if (run.list && listEvents.length) {
    const listResult = results[streams.length - 2];
    run.list = { state: listEvents.reduce(listDecider.evolve, run.list.state), revision: listResult.nextExpectedRevision };
  }
  return counts;
}
