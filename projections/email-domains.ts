// Read model of email sending domains: one row per domain not removed (its DKIM key, the last DNS
// check, the last signing verdict, BIMI logo and warm-up), its stored DMARC aggregate reports, and
// the typed queries the API, the SMTP signer and the sending policy read them with.
//
// Rebuildable on its own: it reads no other read model. Nothing here is a person's data; the DKIM
// private key stays sealed (src/seal.ts) as the event carries it.
import { type DmarcReportRecord, type DmarcSourceRecord, EMAIL_DOMAIN_EVENT_TYPES, type EmailDomainEvent, evolveWarmup, type WarmupState, type WarmupStatus } from '../commands/email-domain.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A row of email_domains as node-postgres returns it. */
export interface EmailDomainRow {
  id: string;
  account_id: string;
  domain: string;
  unicode_domain: string;
  selector: string;
  algorithm: string;
  public_key: string;
  private_key_sealed: string;
  return_path: string;
  status: 'pending' | 'verified';
  records: unknown[] | null;
  checked_at: Date | null;
  verified_at: Date | null;
  signing: Record<string, unknown> | null;
  signing_checked_at: Date | null;
  bimi_logo_url: string | null;
  warmup_status: WarmupStatus;
  warmup_started_at: Date | null;
  warmup_paused_at: Date | null;
  warmup_paused_days: number;
  created_at: Date;
  updated_at: Date;
}

export interface DmarcReportRow {
  domain_id: string;
  org_name: string;
  report_id: string;
  email: string | null;
  begin_at: Date;
  end_at: Date;
  messages: number;
  policy: DmarcReportRecord['policy'];
  sources: DmarcSourceRecord[];
  received_at: Date;
}

/** The warm-up columns of a row as the ramp reads them. */
export const warmupOfRow = (r: Pick<EmailDomainRow, 'warmup_status' | 'warmup_started_at' | 'warmup_paused_at' | 'warmup_paused_days'>): WarmupState => ({
  status: r.warmup_status,
  started_at: r.warmup_started_at?.toISOString() ?? null,
  paused_at: r.warmup_paused_at?.toISOString() ?? null,
  paused_days: r.warmup_paused_days,
});

export const emailDomainsProjection: Projection = {
  name: 'email_domains',
  version: 1,
  tables: ['email_domains', 'email_domain_dmarc_reports'],
  types: [...EMAIL_DOMAIN_EVENT_TYPES],
  personalData: 'unused',
  schema: (t) => `
    CREATE TABLE ${t('email_domains')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      domain text NOT NULL,
      unicode_domain text NOT NULL,
      selector text NOT NULL,
      algorithm text NOT NULL,
      public_key text NOT NULL,
      private_key_sealed text NOT NULL,
      return_path text NOT NULL,
      status text NOT NULL,
      records jsonb,
      checked_at timestamptz,
      verified_at timestamptz,
      signing jsonb,
      signing_checked_at timestamptz,
      bimi_logo_url text,
      warmup_status text NOT NULL DEFAULT 'not_started',
      warmup_started_at timestamptz,
      warmup_paused_at timestamptz,
      warmup_paused_days int NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('email_domains')}_account_id ON ${t('email_domains')} (account_id, id DESC);
    CREATE INDEX ${t('email_domains')}_domain ON ${t('email_domains')} (domain, account_id);
    CREATE TABLE ${t('email_domain_dmarc_reports')} (
      domain_id text NOT NULL,
      account_id text NOT NULL,
      org_name text NOT NULL,
      report_id text NOT NULL,
      email text,
      begin_at timestamptz NOT NULL,
      end_at timestamptz NOT NULL,
      messages bigint NOT NULL,
      policy jsonb NOT NULL,
      sources jsonb NOT NULL,
      received_at timestamptz NOT NULL,
      PRIMARY KEY (domain_id, org_name, report_id)
    );
    CREATE INDEX ${t('email_domain_dmarc_reports')}_recent ON ${t('email_domain_dmarc_reports')} (domain_id, end_at DESC);`,
  async apply(tx, events, t) {
    const domains = t('email_domains');
    const reports = t('email_domain_dmarc_reports');
    for (const recorded of events) {
      const e = recorded as unknown as EmailDomainEvent;
      switch (e.type) {
        case 'EmailDomainAdded': {
          const d = e.data;
          await tx.query(
            `INSERT INTO ${domains} (id, account_id, domain, unicode_domain, selector, algorithm, public_key, private_key_sealed, return_path, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $10) ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.domain, d.unicode_domain, d.dkim.selector, d.dkim.algorithm, d.dkim.public_key, d.dkim.private_key_sealed, d.return_path, d.created_at],
          );
          break;
        }
        case 'EmailDomainDnsChecked':
          await tx.query(
            `UPDATE ${domains} SET records = $2, checked_at = $3, updated_at = $3,
               status = CASE WHEN $4 THEN 'verified' ELSE 'pending' END,
               verified_at = CASE WHEN $4 THEN coalesce(verified_at, $3) ELSE NULL END
             WHERE id = $1`,
            [e.data.id, JSON.stringify(e.data.records), e.data.checked_at, e.data.verified],
          );
          break;
        case 'EmailDomainSigningChecked':
          await tx.query(`UPDATE ${domains} SET signing = $2, signing_checked_at = $3, updated_at = $3 WHERE id = $1`, [
            e.data.id,
            JSON.stringify({ verdict: e.data.verdict, decided_by: e.data.decided_by }),
            e.data.checked_at,
          ]);
          break;
        case 'EmailDomainDmarcReportReceived': {
          const r = e.data.report;
          await tx.query(
            `INSERT INTO ${reports} (domain_id, account_id, org_name, report_id, email, begin_at, end_at, messages, policy, sources, received_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
            [e.data.id, e.data.account_id, r.org_name, r.report_id, r.email, r.begin, r.end, r.messages, JSON.stringify(r.policy), JSON.stringify(r.sources), e.data.received_at],
          );
          break;
        }
        case 'EmailDomainBimiLogoSet':
          await tx.query(`UPDATE ${domains} SET bimi_logo_url = $2, updated_at = $3 WHERE id = $1`, [e.data.id, e.data.logo_url, e.data.set_at]);
          break;
        case 'EmailDomainWarmupChanged': {
          const { rows } = await tx.query<EmailDomainRow>(`SELECT * FROM ${domains} WHERE id = $1`, [e.data.id]);
          if (!rows[0]) break;
          const w = evolveWarmup(warmupOfRow(rows[0]), e.data.action, e.data.at);
          await tx.query(
            `UPDATE ${domains} SET warmup_status = $2, warmup_started_at = $3, warmup_paused_at = $4, warmup_paused_days = $5, updated_at = $6 WHERE id = $1`,
            [e.data.id, w.status, w.started_at, w.paused_at, w.paused_days, e.data.at],
          );
          break;
        }
        case 'EmailDomainRemoved':
          await tx.query(`DELETE FROM ${domains} WHERE id = $1`, [e.data.id]);
          await tx.query(`DELETE FROM ${reports} WHERE domain_id = $1`, [e.data.id]);
          break;
      }
    }
  },
};

/** The account's email domain with this id, if it has one. */
export const findEmailDomain = (db: Db, accountId: string, id: string) => findInAccount<EmailDomainRow>(db, 'email_domains', accountId, id);

/** The account's email domains, newest first, within `range`. */
export const listEmailDomains = (db: Db, accountId: string, range: IdRange) => listById<EmailDomainRow>(db, 'email_domains', new Filters(accountId), range);

/**
 * The account's own verified domain of this name (the signer's only source of keys): another
 * account's domain of the same name is never returned. The newest verified one if it added two.
 */
export async function verifiedEmailDomain(db: Db, accountId: string, domain: string): Promise<EmailDomainRow | undefined> {
  const { rows } = await db.query<EmailDomainRow>(
    `SELECT * FROM email_domains WHERE domain = $1 AND account_id = $2 AND status = 'verified' ORDER BY verified_at DESC, id DESC LIMIT 1`,
    [domain, accountId],
  );
  return rows[0];
}

/** The accounts' domains among `domains` whose warm-up is running (active or paused). */
export async function warmingDomains(db: Db, pairs: readonly { account_id: string; domain: string }[]): Promise<EmailDomainRow[]> {
  if (pairs.length === 0) return [];
  const { rows } = await db.query<EmailDomainRow>(
    `SELECT d.* FROM email_domains d JOIN (SELECT DISTINCT a, dom FROM unnest($1::text[], $2::text[]) AS u(a, dom)) u ON d.account_id = u.a AND d.domain = u.dom
     WHERE d.warmup_status IN ('active', 'paused')`,
    [pairs.map((p) => p.account_id), pairs.map((p) => p.domain)],
  );
  return rows;
}

/** The domain's DMARC reports, newest period first, at most `limit`. */
export async function recentDmarcReports(db: Db, domainId: string, limit: number): Promise<DmarcReportRow[]> {
  const { rows } = await db.query<DmarcReportRow>(
    `SELECT domain_id, org_name, report_id, email, begin_at, end_at, messages::int AS messages, policy, sources, received_at
     FROM email_domain_dmarc_reports WHERE domain_id = $1 ORDER BY end_at DESC, org_name, report_id LIMIT $2`,
    [domainId, limit],
  );
  return rows;
}

/** The domain's DMARC reports whose period ended at or after `since` (the rollup's window). */
export async function dmarcReportsSince(db: Db, domainId: string, since: Date): Promise<DmarcReportRow[]> {
  const { rows } = await db.query<DmarcReportRow>(
    `SELECT domain_id, org_name, report_id, email, begin_at, end_at, messages::int AS messages, policy, sources, received_at
     FROM email_domain_dmarc_reports WHERE domain_id = $1 AND end_at >= $2 ORDER BY end_at DESC`,
    [domainId, since],
  );
  return rows;
}

/** The accounts that hold a verified email domain of this name. */
export async function accountsVerifyingDomain(db: Db, domain: string): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM email_domains WHERE domain = $1 AND status = 'verified'`, [domain]);
  return rows.map((r) => r.account_id);
}
