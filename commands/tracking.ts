// The browser tracking aggregate of one account (stream tracking-<account_id>): its public,
// write-only tracking key, the website origins allowed to use it, the identity secret the customer's
// backend signs contact identifiers with (user_hash), whether a signed identity is required, and the
// custom fields and tags a browser may set besides the profile traits.
// The key and its first secret come into being together, on the first command of any kind, so that
// concurrent first requests issue one key: the loser of the append re-decides on the winner's state.
import { type Decider, plainSnapshot } from '../src/decider.ts';

export type TrackingEvent =
  | { type: 'TrackingKeyIssued'; data: { account_id: string; public_key: string; at: string } }
  /** an empty list accepts every origin */
  | { type: 'TrackingOriginsSet'; data: { account_id: string; origins: string[]; at: string } }
  /** sealed with src/seal.ts: the secret is never in clear in the log; rotated: false for the first one */
  | { type: 'TrackingIdentitySecretIssued'; data: { account_id: string; secret_sealed: string; rotated: boolean; at: string } }
  | { type: 'TrackingIdentityRequirementSet'; data: { account_id: string; require_identity: boolean; at: string } }
  /** what a browser may set besides the profile traits: these custom fields, and tags when `tags` */
  | { type: 'TrackingBrowserTraitsSet'; data: { account_id: string; custom_fields: string[]; tags: boolean; at: string } };

/** What a browser may set besides the profile traits (none until the account allows some). */
export interface BrowserTraitRules {
  customFields: string[];
  tags: boolean;
}

export interface TrackingState {
  exists: boolean;
  publicKey?: string;
  origins: string[];
  secretSealed?: string;
  /** secure by default: a new key requires a signed identity */
  requireIdentity: boolean;
  browserTraits: BrowserTraitRules;
}

/** What the first command of an account's tracking issues: a new public key and a sealed identity secret. */
export interface FreshTrackingKey {
  publicKey: string;
  secretSealed: string;
}

interface Base {
  accountId: string;
  /** used only when the account has no tracking key yet */
  fresh: FreshTrackingKey;
  now: Date;
}

export type TrackingCommand =
  | ({ type: 'EnsureTrackingKey' } & Base)
  /** origins already normalised and de-duplicated (src/tracking/origins.ts) */
  | ({ type: 'SetTrackingOrigins'; origins: string[] } & Base)
  | ({ type: 'SetIdentityRequirement'; requireIdentity: boolean } & Base)
  | ({ type: 'RotateIdentitySecret'; secretSealed: string } & Base)
  /** custom field keys de-duplicated, in order */
  | ({ type: 'SetBrowserTraits'; rules: BrowserTraitRules } & Base);

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

export const trackingDecider: Decider<TrackingCommand, TrackingState, TrackingEvent> = {
  initialState: { exists: false, origins: [], requireIdentity: true, browserTraits: { customFields: [], tags: false } },
  snapshot: plainSnapshot('tracking', 100),

  evolve(state, event) {
    switch (event.type) {
      case 'TrackingKeyIssued':
        return { ...state, exists: true, publicKey: event.data.public_key };
      case 'TrackingOriginsSet':
        return { ...state, origins: event.data.origins };
      case 'TrackingIdentitySecretIssued':
        return { ...state, secretSealed: event.data.secret_sealed };
      case 'TrackingIdentityRequirementSet':
        return { ...state, requireIdentity: event.data.require_identity };
      case 'TrackingBrowserTraitsSet':
        return { ...state, browserTraits: { customFields: event.data.custom_fields, tags: event.data.tags } };
    }
  },

  decide(command, state) {
    const account_id = command.accountId;
    const at = command.now.toISOString();
    const issued: TrackingEvent[] = state.exists
      ? []
      : [
          { type: 'TrackingKeyIssued', data: { account_id, public_key: command.fresh.publicKey, at } },
          { type: 'TrackingIdentitySecretIssued', data: { account_id, secret_sealed: command.fresh.secretSealed, rotated: false, at } },
        ];
    let current = state;
    for (const e of issued) current = trackingDecider.evolve(current, e);
    switch (command.type) {
      case 'EnsureTrackingKey':
        return issued;
      case 'SetTrackingOrigins':
        if (sameList(current.origins, command.origins)) return issued;
        return [...issued, { type: 'TrackingOriginsSet', data: { account_id, origins: [...command.origins], at } }];
      case 'SetIdentityRequirement':
        if (current.requireIdentity === command.requireIdentity) return issued;
        return [...issued, { type: 'TrackingIdentityRequirementSet', data: { account_id, require_identity: command.requireIdentity, at } }];
      case 'RotateIdentitySecret':
        return [...issued, { type: 'TrackingIdentitySecretIssued', data: { account_id, secret_sealed: command.secretSealed, rotated: true, at } }];
      case 'SetBrowserTraits': {
        const { customFields, tags } = command.rules;
        if (sameList(current.browserTraits.customFields, customFields) && current.browserTraits.tags === tags) return issued;
        return [...issued, { type: 'TrackingBrowserTraitsSet', data: { account_id, custom_fields: [...customFields], tags, at } }];
      }
    }
  },
};

export const trackingStream = (accountId: string) => `tracking-${accountId}`;
export const TRACKING_EVENT_TYPES = ['TrackingKeyIssued', 'TrackingOriginsSet', 'TrackingIdentitySecretIssued', 'TrackingIdentityRequirementSet', 'TrackingBrowserTraitsSet'] as const;
