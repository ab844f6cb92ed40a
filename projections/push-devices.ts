// Read model of contacts' active push devices (README "Push devices"): one row per device a contact
// has registered and not lost (removed, unregistered, replaced), with its token in clear as the
// dispatcher needs it. A contact's deletion or erasure drops its rows, and the contact is kept in
// push_devices_gone so that a registration appended after it (a race) is not applied.
//
// Rebuildable on its own: it reads no other read model, and every column comes from the events
// (created_at from the device's first registration, last_registered_at from its latest).
import { type ContactDeviceRegisteredData, type ContactDeviceRemovedData, DEVICE_EVENT_TYPES, type DevicePlatform } from '../commands/contact.ts';
import type { Projection } from '../src/read-models/projection.ts';
import { ERASURE_EVENTS } from './erasures.ts';
import { GONE_CONTACT_EVENTS, goneContactOf, goneContactsTable, notGone, recordGoneContact } from './gone-contacts.ts';
import type { Db } from './queries.ts';

export interface PushDeviceRow {
  device_id: string;
  account_id: string;
  contact_id: string;
  token: string;
  platform: DevicePlatform;
  app_id: string | null;
  created_at: Date;
  last_registered_at: Date;
}

/** What a push to a contact needs of each of its devices. */
export interface ActiveDevice {
  device_id: string;
  token: string;
  platform: DevicePlatform;
  app_id: string | null;
}

export const pushDevicesProjection: Projection = {
  name: 'push_devices',
  version: 1,
  tables: ['push_devices', 'push_devices_gone'],
  types: [...DEVICE_EVENT_TYPES, ...GONE_CONTACT_EVENTS],
  flushOn: ERASURE_EVENTS,
  // tokens are not indexed whole (up to 4096 characters: past a btree entry's size), but by their md5
  schema: (t) => `
    CREATE TABLE ${t('push_devices')} (
      device_id text PRIMARY KEY,
      account_id text NOT NULL,
      contact_id text NOT NULL,
      token text NOT NULL,
      platform text NOT NULL,
      app_id text,
      created_at timestamptz NOT NULL,
      last_registered_at timestamptz NOT NULL
    );
    CREATE INDEX ${t('push_devices')}_contact ON ${t('push_devices')} (account_id, contact_id);
    CREATE INDEX ${t('push_devices')}_token ON ${t('push_devices')} (account_id, md5(token));
    ${goneContactsTable(t, 'push_devices_gone')}`,
  async apply(tx, events, t) {
    const devices = t('push_devices');
    const gone = t('push_devices_gone');
    for (const e of events) {
      if (e.type === 'ContactDeviceRegistered') {
        const d = e.data as ContactDeviceRegisteredData;
        await tx.query(
          `INSERT INTO ${devices} AS p (device_id, account_id, contact_id, token, platform, app_id, created_at, last_registered_at)
           SELECT $1, $2, $3, $4, $5, $6, $7, $7 WHERE ${notGone(gone, '$3')}
           ON CONFLICT (device_id) DO UPDATE
             SET token = excluded.token, platform = excluded.platform, app_id = excluded.app_id, last_registered_at = excluded.last_registered_at`,
          [d.device_id, d.account_id, d.id, d.token, d.platform, d.app_id ?? null, d.at],
        );
        continue;
      }
      if (e.type === 'ContactDeviceRemoved') {
        await tx.query(`DELETE FROM ${devices} WHERE device_id = $1`, [(e.data as ContactDeviceRemovedData).device_id]);
        continue;
      }
      // a contact deleted or erased: its devices go (with their tokens), and none registered later lands
      const contactId = goneContactOf(e);
      if (contactId === undefined) continue;
      await tx.query(`DELETE FROM ${devices} WHERE contact_id = $1`, [contactId]);
      await recordGoneContact(tx, gone, contactId);
    }
  },
};

/** The contact's active devices, oldest registration first. */
export async function listDevices(db: Db, accountId: string, contactId: string): Promise<PushDeviceRow[]> {
  const { rows } = await db.query<PushDeviceRow>(
    'SELECT * FROM push_devices WHERE account_id = $1 AND contact_id = $2 ORDER BY created_at, device_id',
    [accountId, contactId],
  );
  return rows;
}

/** One active device of the contact, if it has it. */
export async function findDevice(db: Db, accountId: string, contactId: string, deviceId: string): Promise<PushDeviceRow | undefined> {
  const { rows } = await db.query<PushDeviceRow>('SELECT * FROM push_devices WHERE account_id = $1 AND contact_id = $2 AND device_id = $3', [accountId, contactId, deviceId]);
  return rows[0];
}

/** What a push addressed to a contact is sent to: its active devices, oldest registration first. */
export async function activeDevices(db: Db, accountId: string, contactId: string): Promise<ActiveDevice[]> {
  const { rows } = await db.query<ActiveDevice>(
    'SELECT device_id, token, platform, app_id FROM push_devices WHERE account_id = $1 AND contact_id = $2 ORDER BY created_at, device_id',
    [accountId, contactId],
  );
  return rows;
}

/**
 * An SQL expression, over a `contacts` row aliased `contact`, true when that contact has an active
 * device: what makes a member of a push campaign addressable (README "Campaigns"). One probe of the
 * (account_id, contact_id) index per row, inside the statement that reads the page of members.
 */
export const hasActiveDeviceSql = (contact: string) =>
  `EXISTS (SELECT 1 FROM push_devices pd WHERE pd.account_id = ${contact}.account_id AND pd.contact_id = ${contact}.id)`;

/** The contacts of the account this read model shows holding `token` (more than one only for a moment, or after a crash mid-move). */
export async function contactsHoldingToken(db: Db, accountId: string, token: string): Promise<string[]> {
  const { rows } = await db.query<{ contact_id: string }>(
    'SELECT DISTINCT contact_id FROM push_devices WHERE account_id = $1 AND md5(token) = md5($2) AND token = $2',
    [accountId, token],
  );
  return rows.map((r) => r.contact_id);
}
