// An account's browser tracking settings (README "Browser tracking"): its public key, allowed
// origins, identity secret, whether a signed identity is required and the traits a browser may set. Every write goes through the
// tracking decider on the account's tracking stream; the first one also issues the key and secret.
import { randomBytes } from 'node:crypto';
import { type BrowserTraitRules, type TrackingCommand, type TrackingState, trackingDecider, trackingStream } from '../../commands/tracking.ts';
import { type TrackingKeyRow, trackingKeyOfAccount } from '../../projections/tracking.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { seal, unseal } from '../seal.ts';
import { newIdentitySecret } from './identity.ts';

/** The read models a tracking settings write waits for. */
export const TRACKING_READ_MODELS = ['tracking'];

/** A public, write-only tracking key: it names the account, and can only add events to it. */
export const newPublicKey = () => `etk_${randomBytes(18).toString('base64url')}`;

/** The account's tracking settings as the API answers them (the secret still sealed). */
export interface TrackingSettings {
  publicKey: string;
  origins: string[];
  secretSealed: string;
  requireIdentity: boolean;
  browserTraits: BrowserTraitRules;
}

type Distributed<T> = T extends unknown ? Omit<T, 'accountId' | 'fresh' | 'now'> : never;
/** A tracking command without what every command carries (filled in here). */
export type TrackingChange = Distributed<TrackingCommand>;

const fromState = (s: TrackingState): TrackingSettings => ({
  publicKey: s.publicKey!, origins: s.origins, secretSealed: s.secretSealed!, requireIdentity: s.requireIdentity, browserTraits: s.browserTraits,
});
const fromRow = (r: TrackingKeyRow): TrackingSettings => ({
  publicKey: r.public_key, origins: r.origins, secretSealed: r.secret_sealed!, requireIdentity: r.require_identity,
  browserTraits: browserTraitRulesOf(r),
});

/** What a browser may set besides the profile traits, as the read model holds it. */
export const browserTraitRulesOf = (r: Pick<TrackingKeyRow, 'browser_custom_fields' | 'browser_tags'>): BrowserTraitRules => ({
  customFields: r.browser_custom_fields, tags: r.browser_tags,
});

/**
 * Runs a change of the account's tracking settings and answers them as decided. Concurrent first
 * requests each bring a fresh key; one append wins, the others re-decide on its state and answer
 * its key (handleCommand retries on the revision conflict).
 */
export async function changeTracking(
  engage: Engage,
  accountId: string,
  change: TrackingChange,
  metadata: EventMetadata,
): Promise<{ settings: TrackingSettings; position?: Position }> {
  const fresh = { publicKey: newPublicKey(), secretSealed: await seal(engage.pool, newIdentitySecret()) };
  const command = { ...change, accountId, fresh, now: engage.clock.now() } as TrackingCommand;
  const result = await handleCommand(engage.store, trackingDecider, trackingStream(accountId), command, { ...metadata, accountId });
  return { settings: fromState(result.state), position: result.position };
}

/** The account's tracking settings from the read model, issuing the key (and secret) on first request. */
export async function trackingSettings(engage: Engage, accountId: string, metadata: EventMetadata): Promise<{ settings: TrackingSettings; position?: Position }> {
  const row = await trackingKeyOfAccount(engage.pool, accountId);
  if (row?.secret_sealed) return { settings: fromRow(row) };
  return changeTracking(engage, accountId, { type: 'EnsureTrackingKey' }, metadata);
}

/** A new identity secret: every user_hash made with the one before stops working at once. */
export async function rotateIdentitySecret(engage: Engage, accountId: string, metadata: EventMetadata) {
  const secretSealed = await seal(engage.pool, newIdentitySecret());
  return changeTracking(engage, accountId, { type: 'RotateIdentitySecret', secretSealed }, metadata);
}

/** The identity secret in clear (for those with the settings capability only). */
export const identitySecretOf = (engage: Engage, settings: TrackingSettings) => unseal(engage.pool, settings.secretSealed);
