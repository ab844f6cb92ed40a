// The DKIM keys the SMTP provider signs with, per sending account: the account's own verified
// email domain of the From's name, its private key unsealed. A key found is remembered briefly, so
// a batch of mail from one domain costs one query and one unsealing; a removed or unverified domain
// stops signing within SIGNING_KEY_TTL_MS. No key is never remembered: mail sent right after a
// domain is verified is signed.
import type pg from 'pg';
import { verifiedEmailDomain } from '../../projections/email-domains.ts';
import type { AccountDkimKeyLookup } from '../channels/smtp.ts';
import type { Clock } from '../clock.ts';
import type { DkimKey } from '../dkim-keys.ts';
import { unseal } from '../seal.ts';
import { TtlCache } from '../ttl-cache.ts';

export const SIGNING_KEY_TTL_MS = 5_000;

export function accountDkimKeys(pool: pg.Pool, clock: Clock): AccountDkimKeyLookup {
  const cache = new TtlCache<DkimKey>({ ttlMs: SIGNING_KEY_TTL_MS, max: 10_000, clock });
  return function accountKeyFor(accountId: string, domain: string) {
    return cache.get(`${accountId} ${domain}`, async () => {
      const row = await verifiedEmailDomain(pool, accountId, domain);
      return row ? { selector: row.selector, privateKey: await unseal(pool, row.private_key_sealed) } : undefined;
    });
  };
}
