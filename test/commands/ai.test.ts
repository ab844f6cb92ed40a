// The AI settings decider (commands/ai.ts): brand voice set and cleared (repeats change nothing),
// the add-ons requested by the customer and switched by an operator (a standing request or an
// enabled add-on is not requested again), and the coach's recommendations (the provider's or the
// fallback's) recorded once a day, only while the coach is enabled.
import { describe, it } from 'vitest';
import { aiDecider, type AiEvent, type AiRecommendation } from '../../commands/ai.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(aiDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const accountId = 'acct_1';
const stamp = (minutes: number) => ({ account_id: accountId, at: iso(minutes) });

const profile = { name: 'Acme', tone: 'warm', words_to_avoid: ['cheap'] };
const voiceSet = (minutes = 0, p: object = profile): AiEvent => ({ type: 'BrandVoiceSet', data: { ...stamp(minutes), profile: p } });
const advice: AiRecommendation[] = [{ title: 'Grow your list', detail: 'Add a form.', priority: 'medium' }];

describe('brand voice', () => {
  it('sets a profile', () => {
    given([]).when({ type: 'SetBrandVoice', accountId, profile, now: at(0) }).then([voiceSet(0)]);
  });

  it('the same profile again (in any key order) changes nothing; a different one is set', () => {
    given([voiceSet()]).when({ type: 'SetBrandVoice', accountId, profile: { words_to_avoid: ['cheap'], tone: 'warm', name: 'Acme' }, now: at(1) }).thenNothingHappened();
    given([voiceSet()]).when({ type: 'SetBrandVoice', accountId, profile: { tone: 'formal' }, now: at(1) }).then([voiceSet(1, { tone: 'formal' })]);
  });

  it('null or an empty profile clears a set voice, and changes nothing when none is set', () => {
    given([voiceSet()]).when({ type: 'SetBrandVoice', accountId, profile: null, now: at(2) }).then([{ type: 'BrandVoiceCleared', data: stamp(2) }]);
    given([voiceSet()]).when({ type: 'SetBrandVoice', accountId, profile: {}, now: at(2) }).then([{ type: 'BrandVoiceCleared', data: stamp(2) }]);
    given([]).when({ type: 'SetBrandVoice', accountId, profile: null, now: at(2) }).thenNothingHappened();
    given([voiceSet(), { type: 'BrandVoiceCleared', data: stamp(1) }]).when({ type: 'SetBrandVoice', accountId, profile: {}, now: at(2) }).thenNothingHappened();
  });
});

describe('add-ons', () => {
  it('a request records the note; the writer and the coach are separate', () => {
    given([]).when({ type: 'RequestAddon', accountId, addon: 'coach', note: 'please', now: at(0) }).then([{ type: 'AiCoachRequested', data: { ...stamp(0), note: 'please' } }]);
    given([{ type: 'AiCoachRequested', data: stamp(0) }]).when({ type: 'RequestAddon', accountId, addon: 'writer', now: at(1) }).then([{ type: 'AiWriterRequested', data: stamp(1) }]);
  });

  it('a standing request, or an enabled add-on, is not requested again', () => {
    given([{ type: 'AiWriterRequested', data: stamp(0) }]).when({ type: 'RequestAddon', accountId, addon: 'writer', now: at(1) }).thenNothingHappened();
    given([{ type: 'AiWriterEnabled', data: stamp(0) }]).when({ type: 'RequestAddon', accountId, addon: 'writer', note: 'again', now: at(1) }).thenNothingHappened();
  });

  it('an operator enables (requested or not) and disables; repeats change nothing', () => {
    given([]).when({ type: 'EnableAddon', accountId, addon: 'coach', now: at(0) }).then([{ type: 'AiCoachEnabled', data: stamp(0) }]);
    given([{ type: 'AiCoachRequested', data: stamp(0) }]).when({ type: 'EnableAddon', accountId, addon: 'coach', now: at(1) }).then([{ type: 'AiCoachEnabled', data: stamp(1) }]);
    given([{ type: 'AiCoachEnabled', data: stamp(0) }]).when({ type: 'EnableAddon', accountId, addon: 'coach', now: at(1) }).thenNothingHappened();
    given([{ type: 'AiCoachEnabled', data: stamp(0) }]).when({ type: 'DisableAddon', accountId, addon: 'coach', now: at(1) }).then([{ type: 'AiCoachDisabled', data: stamp(1) }]);
    given([]).when({ type: 'DisableAddon', accountId, addon: 'coach', now: at(1) }).thenNothingHappened();
  });

  it('disabling a standing request declines it: the customer may ask again', () => {
    given([{ type: 'AiWriterRequested', data: stamp(0) }]).when({ type: 'DisableAddon', accountId, addon: 'writer', now: at(1) }).then([{ type: 'AiWriterDisabled', data: stamp(1) }]);
    given([{ type: 'AiWriterRequested', data: stamp(0) }, { type: 'AiWriterDisabled', data: stamp(1) }])
      .when({ type: 'RequestAddon', accountId, addon: 'writer', now: at(2) })
      .then([{ type: 'AiWriterRequested', data: stamp(2) }]);
  });
});

describe('coach recommendations', () => {
  const record = (day: string) => ({ type: 'RecordRecommendations' as const, accountId, day, recommendations: advice, source: { model: 'm1' }, now: at(5) });
  const generated = (day: string): AiEvent => ({ type: 'AiRecommendationsGenerated', data: { ...stamp(5), day, recommendations: advice, model: 'm1' } });
  const enabled: AiEvent = { type: 'AiCoachEnabled', data: stamp(0) };

  it('are recorded for a day while the coach is enabled', () => {
    given([enabled]).when(record('2026-03-01')).then([generated('2026-03-01')]);
  });

  it('the fallback\'s are recorded the same way, with why the provider did not make them', () => {
    given([enabled])
      .when({ ...record('2026-03-01'), source: { degraded_reason: 'not_configured' } })
      .then([{ type: 'AiRecommendationsGenerated', data: { ...stamp(5), day: '2026-03-01', recommendations: advice, degraded_reason: 'not_configured' } }]);
  });

  it('once per day: a second recording of the same day (a concurrent call) changes nothing; the next day records', () => {
    given([enabled, generated('2026-03-01')]).when(record('2026-03-01')).thenNothingHappened();
    given([enabled, generated('2026-03-01')]).when(record('2026-03-02')).then([generated('2026-03-02')]);
  });

  it('are refused (403) while the coach is not enabled: never asked, only requested, or disabled', () => {
    given([]).when(record('2026-03-01')).thenThrows(domainError('forbidden', 403));
    given([{ type: 'AiCoachRequested', data: stamp(0) }]).when(record('2026-03-01')).thenThrows(domainError('forbidden', 403));
    given([enabled, { type: 'AiCoachDisabled', data: stamp(1) }]).when(record('2026-03-01')).thenThrows(domainError('forbidden', 403));
  });
});
