// Every row of every table of a database as text, and where given values still appear in it: how the
// erasure tests prove a value is gone from everything the service stores.
import type pg from 'pg';

/** Every row of every table of the database, as text, by table name. */
export async function everyTableAsText(db: Pick<pg.Pool, 'query'>): Promise<Map<string, string>> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const dump = new Map<string, string>();
  for (const { name } of tables) {
    const { rows } = await db.query<{ t: string }>(`SELECT t::text AS t FROM ${name} t`);
    dump.set(name, rows.map((r) => r.t).join('\n'));
  }
  return dump;
}

/** Where any of `values` still appears: table names, or labels of other outputs ("<value> in <where>"). */
export function foundIn(outputs: Map<string, string>, values: readonly string[]): string[] {
  return [...outputs].flatMap(([where, text]) => values.filter((v) => text.includes(v)).map((v) => `${v} in ${where}`));
}
