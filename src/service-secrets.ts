// Service secrets (the JWT key, the inbound provider callback secrets): from the configuration
// when given, else generated once and kept in the service_secrets table, so every process of one
// deployment shares them and they survive restarts.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Migration } from './db/migrations.ts';

/** The configured value, else the stored one (generated on first use; concurrent first uses agree). */
export async function serviceSecret(pool: Pick<pg.Pool, 'query'>, name: string, configured?: string): Promise<string> {
  if (configured) return configured;
  const candidate = randomBytes(32).toString('base64url');
  await pool.query('INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [name, candidate]);
  const { rows } = await pool.query<{ value: string }>('SELECT value FROM service_secrets WHERE name = $1', [name]);
  return rows[0].value;
}

const remembered = new WeakMap<object, Map<string, Promise<string>>>();

/**
 * A generated secret that never changes once made (a sealing key, a hashing key), read once per
 * pool (or client) and remembered; a failed read (the database was down) is not remembered.
 */
export function storedSecret(db: Pick<pg.Pool, 'query'>, name: string): Promise<string> {
  let byName = remembered.get(db);
  if (!byName) remembered.set(db, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    const read = serviceSecret(db, name);
    byName.set(name, read);
    read.catch(() => {
      if (byName.get(name) === read) byName.delete(name);
    });
    secret = read;
  }
  return secret;
}

/** The service_secrets table (src/schema.ts runs them). */
export const SERVICE_SECRETS_MIGRATIONS: Migration[] = [
  {
    id: 4,
    name: 'service secrets',
    sql: `CREATE TABLE IF NOT EXISTS service_secrets (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());`,
  },
];
