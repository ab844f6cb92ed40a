// A campaign's audience: the members of a list or of a segment as the read models show them when
// the campaign is sent, read in contact id order in keyset pages (a send that stops resumes after
// the last contact it covered). A segment's relative rules ("within the last 7 days") count from
// the moment the send started, so every page of one send sees the same rules. A push campaign's
// pages also say which members have an active device (README "Campaigns"), in the same statement.
import type { Audience } from '../../commands/campaign.ts';
import type { Channel } from '../../commands/message.ts';
import { findList } from '../../projections/lists.ts';
import { hasActiveDeviceSql } from '../../projections/push-devices.ts';
import type { Db } from '../../projections/queries.ts';
import { findSegment } from '../../projections/segments.ts';
import { contactAddressField } from '../messages/validation.ts';
import { matchingAddresses } from '../segments/service.ts';
import type { MemberAddress } from './messages.ts';

/** What a member is sent to: its email or phone, and (read for a push campaign only) whether it has an active push device. */
export interface Member {
  id: string;
  email: string | null;
  phone: string | null;
  has_device?: boolean;
}

/**
 * How a campaign on the channel addresses a member: by its contact's email or phone, or, for push
 * (no contact field holds a device), by its contact id, which the dispatcher fans out to each of
 * the contact's devices (README "Push devices").
 */
export function memberAddress(channel: Channel): MemberAddress {
  return channel === 'push' ? 'devices' : contactAddressField(channel)!;
}

/** The read models an audience on the channel is resolved from (a send waits until they include every earlier write). */
export function audienceReadModels(address: MemberAddress): string[] {
  const models = ['contacts', 'lists', 'segments', 'suppressions', 'contact_events'];
  // a device registered before the send makes its contact a member with an address
  return address === 'devices' ? [...models, 'push_devices'] : models;
}

/** The columns of a page beyond id, email and phone: a push campaign's ask whether the contact (`c`) has a device. */
const extraColumns = (address: MemberAddress) => (address === 'devices' ? [`${hasActiveDeviceSql('c')} AS has_device`] : []);

/** Whether the account has this audience (a list or segment that exists and is not deleted). */
export async function audienceExists(db: Db, accountId: string, audience: Audience): Promise<boolean> {
  const found = audience.type === 'list' ? await findList(db, accountId, audience.id) : await findSegment(db, accountId, audience.id);
  return found !== undefined;
}

/**
 * The audience's members with contact ids after `after`, at most `limit`, in id order; undefined when
 * the audience is gone (its list or segment was deleted). `now`: when the send started. `address`:
 * how the campaign addresses them (push: each member says whether it has a device).
 */
export async function audiencePage(
  db: Db,
  accountId: string,
  audience: Audience,
  page: { after?: string; limit: number; now: Date },
  address: MemberAddress,
): Promise<Member[] | undefined> {
  const columns = extraColumns(address);
  if (audience.type === 'segment') {
    const segment = await findSegment(db, accountId, audience.id);
    return segment && matchingAddresses<Pick<Member, 'has_device'>>(db, accountId, segment.rules, page, columns);
  }
  if (!(await findList(db, accountId, audience.id))) return undefined;
  const { rows } = await db.query<Member>(
    `SELECT ${['c.id', 'c.email', 'c.phone', ...columns].join(', ')} FROM list_members m JOIN contacts c ON c.id = m.contact_id AND c.account_id = m.account_id
     WHERE m.list_id = $1 AND m.account_id = $2 AND m.contact_id > $3 ORDER BY m.contact_id LIMIT $4`,
    [audience.id, accountId, page.after ?? '', page.limit],
  );
  return rows;
}
