// The signing secrets deliveries use: an endpoint's own, or the account's for per-message hooks
// (issued on first need).
import { accountDecider, accountStream } from '../../commands/account.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../decider.ts';
import { newSigningSecret } from './signing.ts';
import { seal, unseal } from '../seal.ts';

/** The account's per-message webhook secret, issuing (or rotating) one when asked or missing. */
export async function accountWebhookSecret(engage: Engage, accountId: string, opts: { rotate?: boolean; actor?: string } = {}): Promise<string> {
  if (!opts.rotate) {
    const { rows } = await engage.pool.query<{ webhook_secret_sealed: string | null }>('SELECT webhook_secret_sealed FROM accounts WHERE id = $1', [accountId]);
    if (rows[0]?.webhook_secret_sealed) return unseal(engage.pool, rows[0].webhook_secret_sealed);
  }
  const sealed = await seal(engage.pool, newSigningSecret());
  const result = await handleCommand(
    engage.store,
    accountDecider,
    accountStream(accountId),
    { type: 'IssueWebhookSecret', secretSealed: sealed, rotate: !!opts.rotate, now: engage.clock.now() },
    { accountId, actor: opts.actor ?? 'system' },
  );
  if (result.position) await engage.runner.waitFor(['auth'], result.position, 5000);
  // another request may have issued one first: the read model has the winner
  const { rows } = await engage.pool.query<{ webhook_secret_sealed: string | null }>('SELECT webhook_secret_sealed FROM accounts WHERE id = $1', [accountId]);
  return unseal(engage.pool, rows[0]?.webhook_secret_sealed ?? sealed);
}

export async function endpointSecret(engage: Engage, endpointId: string): Promise<string | null> {
  const { rows } = await engage.pool.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [endpointId]);
  return rows[0] ? unseal(engage.pool, rows[0].secret_sealed) : null;
}
