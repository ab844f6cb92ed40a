// An account's AI settings (stream ai-<accountId>): the brand voice the helpers write in, the two
// paid add-ons (writer, coach) that the customer requests and an operator enables or disables, and
// the coach's daily recommendations (the provider's or the fallback's), recorded once per UTC day so
// later calls that day reuse them.
import type { Decider } from '../src/decider.ts';
import { forbidden } from '../src/errors.ts';

export const AI_ADDONS = ['writer', 'coach'] as const;
export type AiAddon = (typeof AI_ADDONS)[number];
export type AddonStatus = 'none' | 'requested' | 'enabled';

export interface BrandVoiceProfile {
  name?: string;
  tone?: string;
  audience?: string;
  style_notes?: string;
  words_to_use?: string[];
  words_to_avoid?: string[];
  sample?: string;
}

export interface AiRecommendation {
  title: string;
  detail: string;
  priority: 'high' | 'medium' | 'low';
}

/** What made a day's recommendations: the provider (its model), or the rule-based fallback (and why). */
export type RecommendationsSource = { model: string } | { degraded_reason: string };

type Stamp = { account_id: string; at: string };

export type AiEvent =
  | { type: 'BrandVoiceSet'; data: Stamp & { profile: BrandVoiceProfile } }
  | { type: 'BrandVoiceCleared'; data: Stamp }
  | { type: 'AiWriterRequested'; data: Stamp & { note?: string } }
  | { type: 'AiWriterEnabled'; data: Stamp }
  | { type: 'AiWriterDisabled'; data: Stamp }
  | { type: 'AiCoachRequested'; data: Stamp & { note?: string } }
  | { type: 'AiCoachEnabled'; data: Stamp }
  | { type: 'AiCoachDisabled'; data: Stamp }
  | { type: 'AiRecommendationsGenerated'; data: Stamp & { day: string; recommendations: AiRecommendation[] } & RecommendationsSource };

export const AI_EVENT_TYPES = [
  'BrandVoiceSet',
  'BrandVoiceCleared',
  'AiWriterRequested',
  'AiWriterEnabled',
  'AiWriterDisabled',
  'AiCoachRequested',
  'AiCoachEnabled',
  'AiCoachDisabled',
  'AiRecommendationsGenerated',
] as const satisfies readonly AiEvent['type'][];

/** The event types of one add-on, by what happened to it. */
export const ADDON_EVENTS = {
  writer: { requested: 'AiWriterRequested', enabled: 'AiWriterEnabled', disabled: 'AiWriterDisabled' },
  coach: { requested: 'AiCoachRequested', enabled: 'AiCoachEnabled', disabled: 'AiCoachDisabled' },
} as const satisfies Record<AiAddon, Record<'requested' | 'enabled' | 'disabled', AiEvent['type']>>;

/** The add-on and what happened to it, for an add-on event type. */
export function addonEventOf(type: string): { addon: AiAddon; change: 'requested' | 'enabled' | 'disabled' } | undefined {
  for (const addon of AI_ADDONS) {
    for (const change of ['requested', 'enabled', 'disabled'] as const) if (ADDON_EVENTS[addon][change] === type) return { addon, change };
  }
  return undefined;
}

export interface AddonState {
  status: AddonStatus;
  /** when the customer asked (kept once enabled; null when enabled without asking, or after a disable) */
  requested_at: string | null;
}

export interface AiState {
  brandVoice: BrandVoiceProfile | null;
  writer: AddonState;
  coach: AddonState;
  /** the UTC day of the last recorded recommendations: days only move forward */
  lastRecommendationsDay: string | null;
}

export type AiCommand =
  | { type: 'SetBrandVoice'; accountId: string; profile: BrandVoiceProfile | null; now: Date }
  | { type: 'RequestAddon'; accountId: string; addon: AiAddon; note?: string; now: Date }
  | { type: 'EnableAddon'; accountId: string; addon: AiAddon; now: Date }
  | { type: 'DisableAddon'; accountId: string; addon: AiAddon; now: Date }
  | { type: 'RecordRecommendations'; accountId: string; day: string; recommendations: AiRecommendation[]; source: RecommendationsSource; now: Date };

const NONE: AddonState = { status: 'none', requested_at: null };

/** Key order does not make a profile different: compare with sorted keys. */
function canonical(profile: BrandVoiceProfile): string {
  return JSON.stringify(Object.fromEntries(Object.entries(profile).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b))));
}

const isEmpty = (profile: BrandVoiceProfile | null) => profile === null || Object.values(profile).every((v) => v === undefined);

export const aiDecider: Decider<AiCommand, AiState, AiEvent> = {
  initialState: { brandVoice: null, writer: NONE, coach: NONE, lastRecommendationsDay: null },
  evolve(state, e) {
    switch (e.type) {
      case 'BrandVoiceSet':
        return { ...state, brandVoice: e.data.profile };
      case 'BrandVoiceCleared':
        return { ...state, brandVoice: null };
      case 'AiRecommendationsGenerated':
        return { ...state, lastRecommendationsDay: e.data.day };
      default: {
        const { addon, change } = addonEventOf(e.type)!;
        const before = state[addon];
        const after: AddonState =
          change === 'requested' ? { status: 'requested', requested_at: e.data.at } : change === 'enabled' ? { status: 'enabled', requested_at: before.requested_at } : NONE;
        return { ...state, [addon]: after };
      }
    }
  },
  decide(c, state) {
    const stamp = { account_id: c.accountId, at: c.now.toISOString() };
    switch (c.type) {
      case 'SetBrandVoice': {
        if (isEmpty(c.profile)) return state.brandVoice === null ? [] : [{ type: 'BrandVoiceCleared', data: stamp }];
        const profile = c.profile!;
        if (state.brandVoice && canonical(state.brandVoice) === canonical(profile)) return [];
        return [{ type: 'BrandVoiceSet', data: { ...stamp, profile } }];
      }
      case 'RequestAddon': {
        // a request that stands, or an add-on already on, changes nothing
        if (state[c.addon].status !== 'none') return [];
        return [{ type: ADDON_EVENTS[c.addon].requested, data: { ...stamp, ...(c.note ? { note: c.note } : {}) } }];
      }
      case 'EnableAddon':
        return state[c.addon].status === 'enabled' ? [] : [{ type: ADDON_EVENTS[c.addon].enabled, data: stamp }];
      case 'DisableAddon':
        // disabling a requested add-on declines the request
        return state[c.addon].status === 'none' ? [] : [{ type: ADDON_EVENTS[c.addon].disabled, data: stamp }];
      case 'RecordRecommendations': {
        if (state.coach.status !== 'enabled') throw forbidden('the AI coach is not enabled for this account (POST /v1/account/ai-coach-request asks for it)');
        // a concurrent call of the same day recorded first: keep its recommendations
        if (state.lastRecommendationsDay !== null && c.day <= state.lastRecommendationsDay) return [];
        return [{ type: 'AiRecommendationsGenerated', data: { ...stamp, day: c.day, recommendations: c.recommendations, ...c.source } }];
      }
    }
  },
};

export const aiStream = (accountId: string) => `ai-${accountId}`;
