// A campaign batch's messages: one per member with an address on the channel (the others are
// skipped), with ids derived from (campaign, contact) so a repeated batch finds what it wrote. Pure
// and light on imports: a CPU work thread builds them (src/cpu-work/tasks.ts), the recipient's
// country parse included.
import type { CampaignTemplate } from '../../commands/campaign.ts';
import type { MessageAcceptedData } from '../../commands/message.ts';
import { derivedId } from '../ids.ts';
import { acceptedData } from '../messages/accepted.ts';

/** What a member is sent to (src/campaigns/audience.ts reads them; not imported here, so a CPU work thread loads no read-model code). */
type Member = { id: string; email: string | null; phone: string | null };

export interface CampaignMessagesInput {
  campaignId: string;
  accountId: string;
  template: CampaignTemplate;
  addressField: 'email' | 'phone' | null;
  members: readonly Member[];
  startedAt: string;
  now: Date;
}

/** One message per member that has an address on the channel (the others are skipped). */
export function campaignMessages({ campaignId, accountId, template, addressField, members, startedAt, now }: CampaignMessagesInput): MessageAcceptedData[] {
  const at = new Date(startedAt);
  const out: MessageAcceptedData[] = [];
  for (const m of members) {
    const to = addressField ? m[addressField] : null;
    if (!to) continue;
    out.push(acceptedData(accountId, { content: { ...template, to } }, now, { id: derivedId('message', at, campaignId, m.id), campaignId }));
  }
  return out;
}
