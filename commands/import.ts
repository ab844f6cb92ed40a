// The contacts import aggregate (stream import-<id>): a CSV file accepted for import (stored apart,
// src/imports/uploads.ts), the batches of its rows applied in file order, and its end. The stream is
// the import's progress: rows_through says which data rows are done, so a run that resumes after a
// crash starts after it, and a batch applied twice is refused (the worker appends each batch at the
// revision it read, with the batch's contact and list events in the same transaction).
import type { Decider } from '../src/decider.ts';
import { AppError, conflict } from '../src/errors.ts';

/** Row errors an import keeps (the first ones, in file order); later ones are only counted. */
export const MAX_KEPT_ERRORS = 1000;

export type ImportStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** How one header of the file was mapped: a standard field, `custom_fields.<key>`, or `ignore`. */
export interface ImportColumn {
  header: string;
  field: string;
}

/** A rejected row: `row` as a spreadsheet numbers it (the header is row 1), the header of the column at fault (null: the row as a whole). */
export interface ImportRowError {
  row: number;
  column: string | null;
  message: string;
}

export interface ImportAcceptedData {
  account_id: string;
  id: string;
  list_id: string | null;
  file_name: string | null;
  /** data rows in the file (blank rows not counted) */
  rows_total: number;
  bytes: number;
  /** the explicit mapping the client gave (header → target), if any */
  mapping: Record<string, string> | null;
  default_country: string | null;
  tags: string[];
  columns: ImportColumn[];
  /** the delimiter detected from the header line */
  delimiter: string;
  created_at: string;
}

export interface ImportBatchAppliedData {
  account_id: string;
  id: string;
  /** every data record up to this one (1-based, header excluded, blank rows included) is done */
  rows_through: number;
  imported: number;
  updated: number;
  failed: number;
  errors: ImportRowError[];
  at: string;
}

export type ImportEvent =
  | { type: 'ImportAccepted'; data: ImportAcceptedData }
  | { type: 'ImportBatchApplied'; data: ImportBatchAppliedData }
  | { type: 'ImportCompleted'; data: { account_id: string; id: string; at: string } }
  | { type: 'ImportFailed'; data: { account_id: string; id: string; reason: string; at: string } };

export interface ImportState {
  status: 'none' | ImportStatus;
  accepted?: ImportAcceptedData;
  rowsThrough: number;
  imported: number;
  updated: number;
  failed: number;
  errorsKept: number;
}

export type ImportCommand =
  | { type: 'AcceptImport'; data: Omit<ImportAcceptedData, 'created_at'>; now: Date }
  | {
      type: 'ApplyImportBatch';
      accountId: string;
      rowsThrough: number;
      imported: number;
      updated: number;
      failed: number;
      /** every row error of the batch; the decider keeps what fits under MAX_KEPT_ERRORS */
      errors: readonly ImportRowError[];
      now: Date;
    }
  | { type: 'CompleteImport'; accountId: string; now: Date }
  | { type: 'FailImport'; accountId: string; reason: string; now: Date };

const running = (s: ImportState) => s.status === 'queued' || s.status === 'processing';

function mine(state: ImportState, accountId: string) {
  if (state.status === 'none' || state.accepted?.account_id !== accountId) throw new AppError(404, 'not_found', 'import not found');
}

const count = (n: number) => Number.isInteger(n) && n >= 0;

export const importDecider: Decider<ImportCommand, ImportState, ImportEvent> = {
  initialState: { status: 'none', rowsThrough: 0, imported: 0, updated: 0, failed: 0, errorsKept: 0 },
  evolve(state, event) {
    switch (event.type) {
      case 'ImportAccepted':
        return { ...state, status: 'queued', accepted: event.data };
      case 'ImportBatchApplied': {
        const d = event.data;
        return {
          ...state,
          status: 'processing',
          rowsThrough: d.rows_through,
          imported: state.imported + d.imported,
          updated: state.updated + d.updated,
          failed: state.failed + d.failed,
          errorsKept: state.errorsKept + d.errors.length,
        };
      }
      case 'ImportCompleted':
        return { ...state, status: 'completed' };
      case 'ImportFailed':
        return { ...state, status: 'failed' };
    }
  },
  decide(command, state) {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'AcceptImport':
        if (state.status !== 'none') throw conflict('import already exists');
        return [{ type: 'ImportAccepted', data: { ...command.data, created_at: at } }];
      case 'ApplyImportBatch': {
        mine(state, command.accountId);
        if (!running(state)) throw conflict(`the import is ${state.status}`);
        // a batch is applied once: a runner that read an older revision stops here
        if (command.rowsThrough <= state.rowsThrough) throw conflict(`rows through ${state.rowsThrough} are applied already`);
        if (![command.rowsThrough, command.imported, command.updated, command.failed].every(count)) throw new Error('batch counts must be whole numbers ≥ 0');
        const room = Math.max(0, MAX_KEPT_ERRORS - state.errorsKept);
        const d = state.accepted!;
        return [
          {
            type: 'ImportBatchApplied',
            data: {
              account_id: d.account_id, id: d.id, rows_through: command.rowsThrough, imported: command.imported, updated: command.updated, failed: command.failed,
              errors: command.errors.slice(0, room), at,
            },
          },
        ];
      }
      case 'CompleteImport':
        mine(state, command.accountId);
        if (state.status === 'completed') return [];
        if (!running(state)) throw conflict(`the import is ${state.status}`);
        return [{ type: 'ImportCompleted', data: { account_id: command.accountId, id: state.accepted!.id, at } }];
      case 'FailImport':
        mine(state, command.accountId);
        if (!running(state)) return [];
        return [{ type: 'ImportFailed', data: { account_id: command.accountId, id: state.accepted!.id, reason: command.reason, at } }];
    }
  },
};

export const importStream = (id: string) => `import-${id}`;
export const IMPORT_EVENT_TYPES = ['ImportAccepted', 'ImportBatchApplied', 'ImportCompleted', 'ImportFailed'] as const;
