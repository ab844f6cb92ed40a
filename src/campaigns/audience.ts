// A campaign's audience: the members of a list or of a segment as the read models show them when
// the campaign is sent, read in contact id order in keyset pages (a send that stops resumes after
// the last contact it covered). A segment's relative rules ("within the last 7 days") count from
// the moment the send started, so every page of one send sees the same rules.
import type { Audience } from '../../commands/campaign.ts';
import { findList } from '../../projections/lists.ts';
import type { Db } from '../../projections/queries.ts';
import { findSegment } from '../../projections/segments.ts';
import { matchingAddresses } from '../segments/service.ts';

/** What a member is sent to. */
export interface Member {
  id: string;
  email: string | null;
  phone: string | null;
}

/** The read models an audience is resolved from (a send waits until they include every earlier write). */
export const AUDIENCE_READ_MODELS = ['contacts', 'lists', 'segments', 'suppressions', 'contact_events'] as const;

/** Whether the account has this audience (a list or segment that exists and is not deleted). */
export async function audienceExists(db: Db, accountId: string, audience: Audience): Promise<boolean> {
  const found = audience.type === 'list' ? await findList(db, accountId, audience.id) : await findSegment(db, accountId, audience.id);
  return found !== undefined;
}

/**
 * The audience's members with contact ids after `after`, at most `limit`, in id order; undefined when
 * the audience is gone (its list or segment was deleted). `now`: when the send started.
 */
export async function audiencePage(
  db: Db,
  accountId: string,
  audience: Audience,
  page: { after?: string; limit: number; now: Date },
): Promise<Member[] | undefined> {
  if (audience.type === 'segment') {
    const segment = await findSegment(db, accountId, audience.id);
    return segment && matchingAddresses(db, accountId, segment.rules, page);
  }
  if (!(await findList(db, accountId, audience.id))) return undefined;
  const { rows } = await db.query<Member>(
    `SELECT c.id, c.email, c.phone FROM list_members m JOIN contacts c ON c.id = m.contact_id AND c.account_id = m.account_id
     WHERE m.list_id = $1 AND m.account_id = $2 AND m.contact_id > $3 ORDER BY m.contact_id LIMIT $4`,
    [audience.id, accountId, page.after ?? '', page.limit],
  );
  return rows;
}
