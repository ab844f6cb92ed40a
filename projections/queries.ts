// What the read models' typed queries share: the connection they run on, and account-scoped lists
// ordered newest id first (the order the API's id cursor pages through).
import type pg from 'pg';

/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Db = Pick<pg.Pool, 'query'>;

/** A slice of a list ordered by id, newest first: at most `limit` rows with ids below `before`. */
export interface IdRange {
  limit: number;
  before?: string;
}

/** Parameterised WHERE clauses of a list query, scoped to one account. */
export class Filters {
  readonly where: string[] = ['account_id = $1'];
  readonly params: unknown[];

  constructor(accountId: string) {
    this.params = [accountId];
  }

  /** Adds a condition on new parameters (usually one); `sql` gets the first one's number. */
  add(sql: (n: number) => string, ...values: [unknown, ...unknown[]]): this {
    const first = this.params.length + 1;
    this.params.push(...values);
    this.where.push(sql(first));
    return this;
  }

  /** Adds `column op value` when a value is given (an absent or empty filter filters nothing). */
  compare(column: string, op: '=' | '>=' | '<', value: unknown): this {
    return value ? this.add((n) => `${column} ${op} $${n}`, value) : this;
  }
}

/** The row of an account-scoped table with this id, if that account has it. */
export async function findInAccount<R extends pg.QueryResultRow>(db: Db, table: string, accountId: string, id: string): Promise<R | undefined> {
  const { rows } = await db.query<R>(`SELECT * FROM ${table} WHERE id = $1 AND account_id = $2`, [id, accountId]);
  return rows[0];
}

/** The rows of `table` matching `filters` within `range`, newest id first. */
export async function listById<R extends pg.QueryResultRow>(db: Db, table: string, filters: Filters, range: IdRange): Promise<R[]> {
  if (range.before !== undefined) filters.add((n) => `id < $${n}`, range.before);
  const params = [...filters.params, range.limit];
  const { rows } = await db.query<R>(`SELECT * FROM ${table} WHERE ${filters.where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`, params);
  return rows;
}

/** `s` as a literal inside a LIKE pattern. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** One recipient of one account: the key suppressions, timezones and caps are looked up by. */
export interface Recipient {
  account_id: string;
  address: string;
}
