// The page a click on the shared click host shows instead of a redirect while its account is new
// (README "Link domains and click tracking"): the destination as text and a plain link, no script and
// no automatic redirect, so the shared host cannot serve a new account as an open redirect for phishing.
import { findAccount } from '../../projections/auth.ts';
import { isVerifiedLinkDomainOf } from '../../projections/link-domains.ts';
import type { Engage } from '../context.ts';

const DAY_MS = 86_400_000;

/** The page's own policy: nothing loads or runs, no frame may hold it. */
export const INTERSTITIAL_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Whether a click that came to `host` shows the interstitial: never through the account's own
 * verified link domain (it vouches for the links), never when CLICK_INTERSTITIAL_DAYS is 0; else
 * while the account is younger than that many days (an account the read model does not show yet
 * is new).
 */
export async function showsInterstitial(engage: Engage, accountId: string, host: string): Promise<boolean> {
  const days = engage.config.CLICK_INTERSTITIAL_DAYS;
  if (days === 0) return false;
  const hostname = host.toLowerCase().replace(/\.$/, '');
  if (await isVerifiedLinkDomainOf(engage.pool, accountId, hostname)) return false;
  const account = await findAccount(engage.pool, accountId);
  return !account || engage.clock.now().getTime() - account.created_at.getTime() < days * DAY_MS;
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** "You are leaving for <host>": the destination in full, and a link the reader chooses to follow. */
export function interstitialPage(url: string): string {
  const host = escapeHtml(new URL(url).host);
  const href = escapeHtml(url);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex, nofollow">',
    `<title>You are leaving for ${host}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{word-break:break-all}</style>',
    '</head><body>',
    `<h1>You are leaving for ${host}</h1>`,
    '<p>The link you followed leads to:</p>',
    `<p><code>${href}</code></p>`,
    '<p>Continue only if you trust this address.</p>',
    `<p><a href="${href}" rel="noopener noreferrer nofollow">Continue to ${host}</a></p>`,
    '</body></html>',
    '',
  ].join('\n');
}
