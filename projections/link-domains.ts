// Read model of click-tracking link domains: one row per domain not removed, with its CNAME target
// and the last live check, and the typed queries the API and the dispatcher read them with.
//
// Rebuildable on its own: it reads no other read model. Nothing here is a person's data.
import { LINK_DOMAIN_EVENT_TYPES, type LinkDomainEvent } from '../commands/link-domain.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of link_domains as node-postgres returns it. */
export interface LinkDomainRow {
  id: string;
  account_id: string;
  domain: string;
  unicode_domain: string;
  target: string;
  status: 'pending' | 'verified';
  found: string[];
  check_error: string | null;
  checked_at: Date | null;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const linkDomainsProjection: Projection = {
  name: 'link_domains',
  version: 1,
  tables: ['link_domains'],
  types: [...LINK_DOMAIN_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('link_domains')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      domain text NOT NULL,
      unicode_domain text NOT NULL,
      target text NOT NULL,
      status text NOT NULL,
      found text[] NOT NULL DEFAULT '{}',
      check_error text,
      checked_at timestamptz,
      verified_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('link_domains')}_account_id ON ${t('link_domains')} (account_id, id DESC);
    CREATE INDEX ${t('link_domains')}_verified ON ${t('link_domains')} (account_id, verified_at DESC, id DESC) WHERE status = 'verified';
    CREATE INDEX ${t('link_domains')}_domain ON ${t('link_domains')} (domain) WHERE status = 'verified';`,
  async apply(tx, events, t) {
    const domains = t('link_domains');
    for (const recorded of events) {
      const e = recorded as unknown as LinkDomainEvent;
      switch (e.type) {
        case 'LinkDomainAdded': {
          const d = e.data;
          await tx.query(
            `INSERT INTO ${domains} (id, account_id, domain, unicode_domain, target, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6) ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.domain, d.unicode_domain, d.target, d.created_at],
          );
          break;
        }
        case 'LinkDomainChecked':
          await tx.query(
            `UPDATE ${domains} SET found = $2, check_error = $3, checked_at = $4, updated_at = $4,
               status = CASE WHEN $5 THEN 'verified' ELSE 'pending' END,
               verified_at = CASE WHEN $5 THEN coalesce(verified_at, $4) ELSE NULL END
             WHERE id = $1`,
            [e.data.id, e.data.found, e.data.error ?? null, e.data.checked_at, e.data.pass],
          );
          break;
        case 'LinkDomainRemoved':
          await tx.query(`DELETE FROM ${domains} WHERE id = $1`, [e.data.id]);
          break;
      }
    }
  },
};

/** The account's link domain with this id, if it has one. */
export const findLinkDomain = (db: Db, accountId: string, id: string) => findInAccount<LinkDomainRow>(db, 'link_domains', accountId, id);

/** The account's link domains, newest first, within `range`. */
export const listLinkDomains = (db: Db, accountId: string, range: IdRange) => listById<LinkDomainRow>(db, 'link_domains', new Filters(accountId), range);

/** The account's newest verified link domain (the one its click links go through), if any. */
export async function verifiedLinkDomain(db: Db, accountId: string): Promise<LinkDomainRow | undefined> {
  return (await verifiedLinkDomains(db, [accountId])).get(accountId);
}

/** Per account among `accountIds`, its newest verified link domain (accounts without one are absent): one query. */
export async function verifiedLinkDomains(db: Db, accountIds: readonly string[]): Promise<Map<string, LinkDomainRow>> {
  const byAccount = new Map<string, LinkDomainRow>();
  if (accountIds.length === 0) return byAccount;
  const { rows } = await db.query<LinkDomainRow>(
    `SELECT DISTINCT ON (account_id) * FROM link_domains WHERE account_id = ANY($1::text[]) AND status = 'verified'
     ORDER BY account_id, verified_at DESC, id DESC`,
    [[...new Set(accountIds)]],
  );
  for (const r of rows) byAccount.set(r.account_id, r);
  return byAccount;
}

/** Whether `domain` is one of the account's verified link domains (its click links may come through it). */
export async function isVerifiedLinkDomainOf(db: Db, accountId: string, domain: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM link_domains WHERE account_id = $1 AND domain = $2 AND status = 'verified' LIMIT 1`, [accountId, domain]);
  return rows.length > 0;
}

/** Whether an account other than `accountId` has this domain verified (its click links already go through it). */
export async function verifiedByAnotherAccount(db: Db, accountId: string, domain: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM link_domains WHERE domain = $1 AND account_id <> $2 AND status = 'verified' LIMIT 1`, [domain, accountId]);
  return rows.length > 0;
}
