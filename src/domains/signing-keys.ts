// The DKIM keys the SMTP provider signs with, per sending account: the account's own verified
// email domain of the From's name, its private key unsealed. A key found is remembered briefly, so
// a batch of mail from one domain costs one query and one unsealing; a removed or unverified domain
// stops signing within SIGNING_KEY_TTL_MS. No key is never remembered: mail sent right after a
// domain is verified is signed.
import type pg from 'pg';
import { verifiedEmailDomain } from '../../projections/email-domains.ts';
import type { AccountDkimKeyLookup } from '../channels/smtp.ts';
import type { DkimKey } from '../dkim-keys.ts';
import { unseal } from '../seal.ts';

export const SIGNING_KEY_TTL_MS = 5_000;

export function accountDkimKeys(pool: pg.Pool, now: () => number = Date.now): AccountDkimKeyLookup {
  const cache = new Map<string, { at: number; key: Promise<DkimKey | undefined> }>();
  return function accountKeyFor(accountId: string, domain: string) {
    const name = `${accountId} ${domain}`;
    const hit = cache.get(name);
    if (hit && now() - hit.at < SIGNING_KEY_TTL_MS) return hit.key;
    const key = (async () => {
      const row = await verifiedEmailDomain(pool, accountId, domain);
      return row ? { selector: row.selector, privateKey: await unseal(pool, row.private_key_sealed) } : undefined;
    })();
    cache.set(name, { at: now(), key });
    // neither a miss nor a failed lookup (the database went away) is remembered
    const forget = () => cache.get(name)?.key === key && cache.delete(name);
    key.then((found) => found === undefined && forget(), forget);
    if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
    return key;
  };
}
