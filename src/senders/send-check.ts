// The sender of a message being sent, checked against what the account may send from (README
// "Senders at send time"): on sms, a sender whose type the recipient's country does not deliver,
// or must register first, has to be one of the account's approved senders for sms in that
// country, and a phone number among them proven the account's; a number another account has proven
// is nobody else's to send from, whatever the country; on voice and whatsapp, one of its verified
// senders for the channel (a code entered back; WhatsApp numbers: the operator's approval after the
// platform's review). An email sender on a domain another account has verified is refused unless
// this account verified it too. One check serves a whole request: each distinct sender, channel and
// country is looked up once.
import { accountsVerifyingDomain } from '../../projections/email-domains.ts';
import { accountsProvingNumber, isApprovedSender } from '../../projections/senders.ts';
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
      const isNumber = verdict.type === 'long_code' || verdict.type === 'toll_free';
      if (isNumber) {
        const holders = await accountsProvingNumber(pool, sender);
        if (holders.length > 0 && !holders.includes(this.accountId)) return `${sender} is proven by another account: prove it this account's (POST /v1/senders/:id/verification) to send from it`;
      }
      const mustBeApproved = !verdict.valid || verdict.registration_required;
      if (!mustBeApproved || (await isApprovedSender(pool, this.accountId, sender, 'sms', rules.country, isNumber))) return null;
      if (isNumber && verdict.valid && (await isApprovedSender(pool, this.accountId, sender, 'sms', rules.country))) {
        return `${sender} is not a verified sms sender of this account for ${rules.country}: prove the number with POST /v1/senders/:id/verification`;
      }
      const why = verdict.valid ? `a ${verdict.type?.replace('_', ' ')} sender must be registered in ${rules.country}` : verdict.issues.map((i) => i.message).join('; ');
      return `${sender} is not an approved sms sender of this account for ${rules.country} (${why}): register it with POST /v1/senders`;
    }
    if (channel === 'voice' || channel === 'whatsapp') {
      // a caller ID or whatsapp number is the account's only once proven (a whatsapp approval is the proof)
      if (await isApprovedSender(pool, this.accountId, sender, channel, undefined, true)) return null;
      const how = channel === 'voice' ? 'register it with POST /v1/senders and prove it with POST /v1/senders/:id/verification' : 'register it with POST /v1/senders (an operator approves it after the platform review)';
      return `${sender} is not a verified ${channel} sender of this account: ${how}`;
    }
    return null;
  }
}

