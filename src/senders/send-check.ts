// The sender of a message being sent, checked against what the account may send from (README
// "Senders at send time"): on sms, a sender whose type the recipient's country does not deliver,
// or must register first, has to be one of the account's approved senders for sms in that
// country; on voice and whatsapp, one of its approved senders for the channel (WhatsApp numbers
// always go through the platform's review). An email sender on a domain another account has
// verified is refused unless this account verified it too. One check serves a whole request:
// each distinct sender, channel and country is looked up once.
import { accountsVerifyingDomain } from '../../projections/email-domains.ts';
import { isApprovedSender } from '../../projections/senders.ts';
import type { Engage } from '../context.ts';
import { countryOfPhone } from '../contacts/validation.ts';
import { domainOfAddress } from '../domains/names.ts';
import type { Issue } from '../errors.ts';
import type { ValidSend } from '../messages/validation.ts';
import { checkSender, rulesFor } from './classify.ts';

export class SenderCheck {
  private readonly verdicts = new Map<string, Promise<string | null>>();

  constructor(
    private readonly engage: Engage,
    private readonly accountId: string,
  ) {}

  /** The problem with the send's sender, or none. */
  async issues(send: ValidSend): Promise<Issue[]> {
    const { channel, sender, to } = send.content;
    if (!sender) return [];
    return this.check(channel, sender, to);
  }

  /**
   * The problems of a campaign template's sender that do not depend on the recipient: email domains,
   * voice and whatsapp approvals. (An sms sender's rules are per recipient country: a campaign's sms
   * go out under the account's own responsibility for them.)
   */
  async templateIssues(content: Pick<ValidSend['content'], 'channel' | 'sender'>): Promise<Issue[]> {
    if (!content.sender || content.channel === 'sms') return [];
    return this.check(content.channel, content.sender, '');
  }

  private async check(channel: string, sender: string, to: string): Promise<Issue[]> {
    const key = channel === 'email' ? `email ${domainOfAddress(sender) ?? ''}` : `${channel} ${sender} ${channel === 'sms' ? countryOfPhone(to) : ''}`;
    let verdict = this.verdicts.get(key);
    if (!verdict) this.verdicts.set(key, (verdict = this.decide(channel, sender, to)));
    const problem = await verdict;
    return problem ? [{ path: 'sender', message: problem }] : [];
  }

  private async decide(channel: string, sender: string, to: string): Promise<string | null> {
    const { pool } = this.engage;
    if (channel === 'email') {
      const domain = domainOfAddress(sender);
      if (!domain) return null;
      const owners = await accountsVerifyingDomain(pool, domain);
      if (owners.length === 0 || owners.includes(this.accountId)) return null;
      return `${domain} is verified by another account: add and verify it (POST /v1/account/email-domains) to send from it`;
    }
    if (channel === 'sms') {
      const country = countryOfPhone(to);
      const rules = country ? rulesFor(country) : undefined;
      // a country outside the dataset has no known rule to apply
      if (!rules) return null;
      const verdict = checkSender(sender, 'sms', rules);
      const mustBeApproved = !verdict.valid || verdict.registration_required;
      if (!mustBeApproved || (await isApprovedSender(pool, this.accountId, sender, 'sms', rules.country))) return null;
      const why = verdict.valid ? `a ${verdict.type?.replace('_', ' ')} sender must be registered in ${rules.country}` : verdict.issues.map((i) => i.message).join('; ');
      return `${sender} is not an approved sms sender of this account for ${rules.country} (${why}): register it with POST /v1/senders`;
    }
    if (channel === 'voice' || channel === 'whatsapp') {
      if (await isApprovedSender(pool, this.accountId, sender, channel)) return null;
      return `${sender} is not an approved ${channel} sender of this account: register it with POST /v1/senders`;
    }
    return null;
  }
}

