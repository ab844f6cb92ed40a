// A campaign batch's messages: one per member with an address on the channel (the others are
// skipped; on push the address is the member's contact id, when it has a device), with ids derived
// from (campaign, contact) so a repeated batch finds what it wrote. A campaign that names a
// template renders each member's own message here, from the member's contact (README
// "Templates"); a member whose render fails still gets its message, failed with reason
// `template_error` and the render's words. Pure and light on imports: a CPU work thread builds them
// (src/cpu-work/tasks.ts), the recipient's country parse and the render included.
import type { TemplateVariables } from '../../commands/account.ts';
import type { CampaignTemplate } from '../../commands/campaign.ts';
import type { MessageAcceptedData, MessageContent } from '../../commands/message.ts';
import type { ContactRow } from '../../projections/contacts.ts';
import { AppError, describeIssues } from '../errors.ts';
import { derivedId } from '../ids.ts';
import { acceptedData } from '../messages/accepted.ts';
import { renderScope, renderVersion, sendFields, type TemplateVersion } from '../templates/render.ts';

/** What a member is sent to (src/campaigns/audience.ts reads them; not imported here, so a CPU work thread loads no read-model code), and, for a template that reads contact.*, its contact. */
type Member = { id: string; email: string | null; phone: string | null; has_device?: boolean; contact?: ContactRow };

/** How a campaign addresses its members: by their email, their phone, or (push) their contact id when they have a device (src/campaigns/audience.ts: memberAddress). */
export type MemberAddress = 'email' | 'phone' | 'devices';

/** How a templated campaign's messages are rendered: the version, the account, the strictness. */
export interface CampaignRender {
  version: TemplateVersion;
  account: { id: string; name: string };
  mode: TemplateVariables;
}

export interface CampaignMessagesInput {
  campaignId: string;
  accountId: string;
  template: CampaignTemplate;
  addressField: MemberAddress;
  members: readonly Member[];
  startedAt: string;
  now: Date;
  /** a campaign that names a template */
  render?: CampaignRender;
}

/** A message of the batch, and, when its render failed, why (it is appended failed). */
export interface CampaignMessage {
  data: MessageAcceptedData;
  templateError?: string;
}

/** The message's content for one member: the campaign's own, or the template rendered for the member. */
function contentFor(template: CampaignTemplate, render: CampaignRender | undefined, member: Member, to: string, messageId: string): { content: MessageContent; templateError?: string } {
  const { template_id: _t, template_version: _v, data, message, ...fields } = template;
  if (!render) return { content: { ...fields, message: message ?? '', to } };
  const scope = renderScope({ contact: member.contact, data, account: render.account, message: { id: messageId, channel: fields.channel, to } });
  try {
    return { content: { ...fields, to, ...sendFields(renderVersion(render.version, scope, render.mode)) } };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const issues = (err.extra as { issues?: { path: string; message: string }[] }).issues;
    // the message keeps what it was to be made from: the template's text, unrendered
    return { content: { ...fields, message: render.version.content.text, to }, templateError: issues?.length ? describeIssues(issues) : err.message };
  }
}

/**
 * Where the member's message goes: its email or phone; on push its contact id, which the dispatcher
 * sends to each of its devices (README "Push devices"). Null: it has none, and is skipped.
 */
function addressOf(m: Member, address: MemberAddress): string | null {
  if (address === 'devices') return m.has_device ? m.id : null;
  return m[address];
}

/** One message per member that has an address on the channel (the others are skipped). */
export function campaignMessages({ campaignId, accountId, template, addressField, members, startedAt, now, render }: CampaignMessagesInput): CampaignMessage[] {
  const at = new Date(startedAt);
  const out: CampaignMessage[] = [];
  for (const m of members) {
    const to = addressOf(m, addressField);
    if (!to) continue;
    const id = derivedId('message', at, campaignId, m.id);
    const { content, templateError } = contentFor(template, render, m, to, id);
    const data = acceptedData(accountId, { content, ...(render ? { template: { id: render.version.id, version: render.version.version } } : {}) }, now, { id, campaignId });
    out.push(templateError === undefined ? { data } : { data, templateError });
  }
  return out;
}
