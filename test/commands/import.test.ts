// The import decider's rules (commands/import.ts): accepting once, batches applied in file order and
// once each (a runner behind the stream is refused), the row errors kept up to 1,000, completing and
// failing only a running import, and account isolation.
import { describe, expect, it } from 'vitest';
import { type ImportAcceptedData, type ImportEvent, type ImportRowError, MAX_KEPT_ERRORS, importDecider } from '../../commands/import.ts';
import { fold } from '../../src/decider.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(importDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

const accountId = 'acct_1';
const base = { account_id: accountId, id: 'imp_1' };

const acceptedData: Omit<ImportAcceptedData, 'created_at'> = {
  ...base,
  list_id: null,
  file_name: 'contacts.csv',
  rows_total: 10,
  bytes: 321,
  mapping: null,
  default_country: 'FR',
  tags: ['imported'],
  columns: [{ header: 'Email Address', field: 'email' }, { header: 'Notes', field: 'ignore' }],
  delimiter: ',',
};
const accepted: ImportEvent = { type: 'ImportAccepted', data: { ...acceptedData, created_at: iso(0) } };
const batch = (rowsThrough: number, counts: { imported?: number; updated?: number; failed?: number; errors?: ImportRowError[] } = {}, minutes = 1): ImportEvent => ({
  type: 'ImportBatchApplied',
  data: { ...base, rows_through: rowsThrough, imported: counts.imported ?? 0, updated: counts.updated ?? 0, failed: counts.failed ?? 0, errors: counts.errors ?? [], at: iso(minutes) },
});
const completed: ImportEvent = { type: 'ImportCompleted', data: { ...base, at: iso(9) } };
const failed: ImportEvent = { type: 'ImportFailed', data: { ...base, reason: 'the list was deleted', at: iso(9) } };

const apply = (rowsThrough: number, counts: { imported?: number; updated?: number; failed?: number; errors?: ImportRowError[] } = {}, minutes = 1, acct = accountId) => ({
  type: 'ApplyImportBatch' as const,
  accountId: acct,
  rowsThrough,
  imported: counts.imported ?? 0,
  updated: counts.updated ?? 0,
  failed: counts.failed ?? 0,
  errors: counts.errors ?? [],
  now: at(minutes),
});
const rowErrors = (n: number, from = 2): ImportRowError[] => Array.from({ length: n }, (_, i) => ({ row: from + i, column: 'Email Address', message: 'must be a valid email address' }));

describe('accepting an import', () => {
  it('records the accepted file with its mapping, options and time', () => {
    given([]).when({ type: 'AcceptImport', data: acceptedData, now: at(0) }).then([accepted]);
  });

  it('an import is accepted once', () => {
    given([accepted]).when({ type: 'AcceptImport', data: acceptedData, now: at(1) }).thenThrows(domainError('conflict', 409));
  });
});

describe('applying batches', () => {
  it('applies a batch with its counts and errors', () => {
    given([accepted]).when(apply(5, { imported: 3, updated: 1, failed: 1, errors: rowErrors(1) })).then([batch(5, { imported: 3, updated: 1, failed: 1, errors: rowErrors(1) })]);
  });

  it('batches go forward: one at or before rows already applied is refused (a second runner, a replay)', () => {
    given([accepted, batch(5)]).when(apply(5)).thenThrows(domainError('conflict', 409));
    given([accepted, batch(5)]).when(apply(3)).thenThrows(domainError('conflict', 409));
    given([accepted, batch(5)]).when(apply(10, {}, 2)).then([batch(10, {}, 2)]);
  });

  it('keeps row errors up to 1,000 in all, the first ones', () => {
    const many = rowErrors(MAX_KEPT_ERRORS - 10);
    const state = fold(importDecider, [accepted, batch(5, { failed: many.length, errors: many })]);
    expect(state.errorsKept).toBe(MAX_KEPT_ERRORS - 10);
    const next = rowErrors(25, 5000);
    given([accepted, batch(5, { failed: many.length, errors: many })])
      .when(apply(8, { failed: 25, errors: next }))
      .then([batch(8, { failed: 25, errors: next.slice(0, 10) })]);
    // full: the counts still go on, no more errors are kept
    const full = rowErrors(MAX_KEPT_ERRORS);
    given([accepted, batch(5, { failed: full.length, errors: full })]).when(apply(8, { failed: 3, errors: rowErrors(3, 9000) })).then([batch(8, { failed: 3 })]);
  });

  it('a finished import takes no batch; another account’s is not found', () => {
    given([accepted, completed]).when(apply(5)).thenThrows(domainError('conflict', 409));
    given([accepted, failed]).when(apply(5)).thenThrows(domainError('conflict', 409));
    given([]).when(apply(5)).thenThrows(domainError('not_found', 404));
    given([accepted]).when(apply(5, {}, 1, 'acct_2')).thenThrows(domainError('not_found', 404));
  });

  it('folds the counts and the place reached', () => {
    const s = fold(importDecider, [accepted, batch(4, { imported: 2, updated: 1, failed: 1, errors: rowErrors(1) }), batch(10, { imported: 5, failed: 1, errors: rowErrors(1, 9) })]);
    expect(s).toMatchObject({ status: 'processing', rowsThrough: 10, imported: 7, updated: 1, failed: 2, errorsKept: 2 });
  });
});

describe('ending an import', () => {
  it('completes a running import once', () => {
    given([accepted, batch(10)]).when({ type: 'CompleteImport', accountId, now: at(9) }).then([completed]);
    given([accepted]).when({ type: 'CompleteImport', accountId, now: at(9) }).then([completed]);
    given([accepted, completed]).when({ type: 'CompleteImport', accountId, now: at(10) }).thenNothingHappened();
    given([accepted, failed]).when({ type: 'CompleteImport', accountId, now: at(10) }).thenThrows(domainError('conflict', 409));
  });

  it('fails a running import with its reason; an ended one stays as it ended', () => {
    given([accepted, batch(3)]).when({ type: 'FailImport', accountId, reason: 'the list was deleted', now: at(9) }).then([failed]);
    given([accepted, completed]).when({ type: 'FailImport', accountId, reason: 'x', now: at(10) }).thenNothingHappened();
    given([accepted, failed]).when({ type: 'FailImport', accountId, reason: 'x', now: at(10) }).thenNothingHappened();
  });

  it('another account cannot end it', () => {
    given([accepted]).when({ type: 'CompleteImport', accountId: 'acct_2', now: at(9) }).thenThrows(domainError('not_found', 404));
    given([accepted]).when({ type: 'FailImport', accountId: 'acct_2', reason: 'x', now: at(9) }).thenThrows(domainError('not_found', 404));
  });
});
