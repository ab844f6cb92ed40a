// Read model of templates: each live template as its newest version shows it (`templates`), and
// every version any template had (`template_versions`), which a deleted template keeps: a send
// already accepted from one of its versions can still be rendered (README "Templates").
//
// Rebuildable on its own: it reads no other read model, and holds no personal data.
import { TEMPLATE_EVENT_TYPES, type TemplateContent, type TemplateEvent } from '../commands/template.ts';
import type { Channel } from '../commands/message.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { type Db, Filters, type IdRange, findInAccount, listById } from './queries.ts';

/** A live template, as its newest version shows it. */
export interface TemplateRow extends TemplateContent {
  id: string;
  account_id: string;
  channel: Channel;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** One version of a template. */
export interface TemplateVersionRow extends TemplateContent {
  id: string;
  account_id: string;
  channel: Channel;
  version: number;
  created_at: Date;
}

export const templatesProjection: Projection = {
  name: 'templates',
  version: 1,
  tables: ['templates', 'template_versions'],
  types: [...TEMPLATE_EVENT_TYPES],
  schema: (t) => `
    CREATE TABLE ${t('templates')} (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      channel text NOT NULL,
      version int NOT NULL,
      name text NOT NULL,
      subject text,
      text text NOT NULL,
      html text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('templates')}_account_id ON ${t('templates')} (account_id, id DESC);
    CREATE TABLE ${t('template_versions')} (
      id text NOT NULL,
      version int NOT NULL,
      account_id text NOT NULL,
      channel text NOT NULL,
      name text NOT NULL,
      subject text,
      text text NOT NULL,
      html text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (id, version)
    );`,
  async apply(tx, events, t) {
    const templates = t('templates');
    const versions = t('template_versions');
    for (const recorded of events) {
      const e = recorded as unknown as TemplateEvent;
      switch (e.type) {
        case 'TemplateCreated': {
          const d = e.data;
          await tx.query(
            `INSERT INTO ${templates} (id, account_id, channel, version, name, subject, text, html, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $8)
             ON CONFLICT (id) DO NOTHING`,
            [d.id, d.account_id, d.channel, d.name, d.subject, d.text, d.html, d.created_at],
          );
          await tx.query(
            `INSERT INTO ${versions} (id, version, account_id, channel, name, subject, text, html, created_at) VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (id, version) DO NOTHING`,
            [d.id, d.account_id, d.channel, d.name, d.subject, d.text, d.html, d.created_at],
          );
          break;
        }
        case 'TemplateVersionCreated': {
          const d = e.data;
          await tx.query(
            `UPDATE ${templates} SET version = $2, name = $3, subject = $4, text = $5, html = $6, updated_at = $7 WHERE id = $1 AND version < $2`,
            [d.id, d.version, d.name, d.subject, d.text, d.html, d.created_at],
          );
          // the channel is the template's, from its first version
          await tx.query(
            `INSERT INTO ${versions} (id, version, account_id, channel, name, subject, text, html, created_at)
             SELECT $1, $2, account_id, channel, $3, $4, $5, $6, $7 FROM ${versions} WHERE id = $1 AND version = 1
             ON CONFLICT (id, version) DO NOTHING`,
            [d.id, d.version, d.name, d.subject, d.text, d.html, d.created_at],
          );
          break;
        }
        case 'TemplateDeleted':
          await tx.query(`DELETE FROM ${templates} WHERE id = $1`, [e.data.id]);
          break;
      }
    }
  },
};

/** The account's live template with this id, if it has one. */
export const findTemplate = (db: Db, accountId: string, id: string) => findInAccount<TemplateRow>(db, 'templates', accountId, id);

/** The account's live templates, newest first, within `range` (of one channel, when given). */
export const listTemplates = (db: Db, accountId: string, range: IdRange, channel?: Channel) =>
  listById<TemplateRow>(db, 'templates', new Filters(accountId).compare('channel', '=', channel), range);

/** One version of the account's template (of a deleted template too). */
export async function findTemplateVersion(db: Db, accountId: string, id: string, version: number): Promise<TemplateVersionRow | undefined> {
  const { rows } = await db.query<TemplateVersionRow>('SELECT * FROM template_versions WHERE id = $1 AND version = $2 AND account_id = $3', [id, version, accountId]);
  return rows[0];
}

/**
 * The version a send renders: `version`, else the newest, of a live or a deleted template (its
 * versions stay: a campaign scheduled from it still sends).
 */
export async function sendableTemplateVersion(db: Db, accountId: string, id: string, version?: number): Promise<TemplateVersionRow | undefined> {
  const { rows } = await db.query<TemplateVersionRow>(
    'SELECT * FROM template_versions WHERE id = $1 AND account_id = $2 AND ($3::int IS NULL OR version = $3) ORDER BY version DESC LIMIT 1',
    [id, accountId, version ?? null],
  );
  return rows[0];
}

/** A template's versions, newest first, below version `before` when given. */
export async function listTemplateVersions(db: Db, accountId: string, id: string, range: { limit: number; before?: number }): Promise<TemplateVersionRow[]> {
  const { rows } = await db.query<TemplateVersionRow>(
    `SELECT * FROM template_versions WHERE id = $1 AND account_id = $2 AND ($3::int IS NULL OR version < $3) ORDER BY version DESC LIMIT $4`,
    [id, accountId, range.before ?? null, range.limit],
  );
  return rows;
}
