// The signing secrets deliveries use: an endpoint's own, or the account's for per-message hooks
// (issued on first need).
import { accountDecider, accountStream } from '../../commands/account.ts';
import { accountWebhookSecretSealed } from '../../projections/auth.ts';
import { sendingEndpoints } from '../../projections/webhook-outbox.ts';
import type { Engage } from '../context.ts';
import { handleCommand } from '../command-handler.ts';
import { newSigningSecret } from './signing.ts';
import { seal, unseal } from '../seal.ts';

/** The account's per-message webhook secret, issuing (or rotating) one when asked or missing. */
export async function accountWebhookSecret(engage: Engage, accountId: string, opts: { rotate?: boolean; actor?: string } = {}): Promise<string> {
  if (!opts.rotate) {
    const current = await accountWebhookSecretSealed(engage.pool, accountId);
    if (current) return unseal(engage.pool, current);
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
  // another request may have issued one first (this one then issued nothing, and the read model may
  // not have the winner yet): the stream's state holds the secret in force either way
  return unseal(engage.pool, result.state.webhookSecretSealed ?? sealed);
}

export async function endpointSecret(engage: Engage, endpointId: string): Promise<string | null> {
  const endpoint = (await sendingEndpoints(engage.pool, [endpointId])).get(endpointId);
  return endpoint ? unseal(engage.pool, endpoint.secret_sealed) : null;
}
