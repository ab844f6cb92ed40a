// The bulk_intakes table: a bulk accepted but not yet appended to the log, one row each
// (src/messages/bulk-intake.ts; README "The write path").
import type { Migration } from '../db/migrations.ts';

/** The table (src/schema.ts runs it). */
export const BULK_INTAKE_MIGRATIONS: Migration[] = [
  {
    id: 65,
    name: 'bulk intakes: a bulk stored whole, sealed, until its messages are in the log',
    sql: `
      CREATE TABLE IF NOT EXISTS bulk_intakes (
        bulk_id text PRIMARY KEY,
        account_id text NOT NULL,
        -- the bulk's message ids lie between these (ids are ULIDs: in byte order, "C")
        first_id text COLLATE "C" NOT NULL,
        last_id text COLLATE "C" NOT NULL,
        messages int NOT NULL,
        payload bytea NOT NULL,
        accepted_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL
      );
      -- compressed, then sealed: stored out of line as they are, without trying to compress them again
      ALTER TABLE bulk_intakes ALTER COLUMN payload SET STORAGE EXTERNAL;
      CREATE INDEX IF NOT EXISTS bulk_intakes_account ON bulk_intakes (account_id);
      CREATE INDEX IF NOT EXISTS bulk_intakes_lease ON bulk_intakes (lease_until);`,
  },
];
