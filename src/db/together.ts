// Several writes as one statement: each a data-modifying WITH clause of one statement, so a read
// model's batch writes its tables in one round trip however many it writes (README "The write path":
// under load every round trip of a batch costs a wake-up of each side, and the batches of the
// caught-up read models share one transaction, one after another).
//
// The writes of one statement run on one snapshot and in no defined order: none may read what
// another writes, and no two may change the same row (a read model's batch writes each row it
// touches once: its folded end state).
import type pg from 'pg';
import { prepared } from './prepared.ts';

/** One statement: its text with parameters $1…$n, and their values. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** The statements as one (their parameters renumbered after each other's), or undefined for none. */
export function together(statements: readonly (Statement | undefined)[]): Statement | undefined {
  const writes = statements.filter((s): s is Statement => s !== undefined);
  if (writes.length <= 1) return writes[0];
  const values: unknown[] = [];
  const texts = writes.map((w) => {
    const offset = values.length;
    values.push(...w.values);
    // $n outside the statement's own literals: our write statements hold no dollar-quoted text
    return offset === 0 ? w.text : w.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = texts.pop()!;
  return { text: `WITH ${texts.map((t, i) => `w${i} AS (${t})`).join(', ')} ${last}`, values };
}

/**
 * Runs the writes as one statement (prepared by its text), if there is any. Returns the rows the last
 * write changed (the statement's main write; those in its WITH clauses are not counted), 0 for none.
 */
export async function writeTogether(db: Pick<pg.Pool, 'query'>, statements: readonly (Statement | undefined)[]): Promise<number> {
  const one = together(statements);
  if (!one) return 0;
  return (await db.query(prepared(one.text, one.values))).rowCount ?? 0;
}
