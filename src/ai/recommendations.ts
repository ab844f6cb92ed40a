// The AI coach (POST /v1/account/ai-recommendations): a snapshot of the account's last 30 days, 3 to
// 5 recommendations from the provider, or from rules over the same snapshot when it cannot answer
// (degraded), recorded once per account and UTC day so that later calls that day reuse them; the
// rules' answer to a provider that failed is not recorded, so the next call asks it again (README "AI helpers").
import { z } from 'zod';
import { type AiRecommendation, aiDecider, aiStream, type RecommendationsSource } from '../../commands/ai.ts';
import { type AiRecommendationsRow, findAiAccount, findAiRecommendations, sourceOfRecommendations } from '../../projections/ai.ts';
import { dayOf } from '../analytics/range.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { forbidden } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { type AccountSnapshot, accountSnapshot } from './account-snapshot.ts';
import { recommendationsPrompt, systemPrompt, jsonOfReply } from './prompts.ts';
import { type Provenance, withProvider } from './service.ts';

export interface CoachAnswer {
  day: string;
  recommendations: AiRecommendation[];
  generated_at: string;
  cached: boolean;
}

const cut = (max: number) => z.string().trim().min(1).transform((s) => (s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s));
const ProviderRecommendations = z.object({
  recommendations: z
    .array(z.object({ title: cut(120), detail: cut(800), priority: z.enum(['high', 'medium', 'low']).catch('medium') }))
    .min(3)
    .transform((list) => list.slice(0, 5)),
});

const pct = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);

/** Rule-based advice from the snapshot: what the coach says when the provider cannot; always 3 to 5 items. */
export function ruleBasedRecommendations(s: AccountSnapshot): AiRecommendation[] {
  const out: AiRecommendation[] = [];
  if (s.messages.total === 0) {
    out.push({ title: 'Send your first campaign', detail: 'No messages went out in the last 30 days. Start with a short welcome message to your newest contacts: it sets expectations and warms up your sending reputation.', priority: 'high' });
  }
  for (const [channel, c] of Object.entries(s.messages.by_channel)) {
    const settled = c.sent + c.delivered + c.failed;
    if (c.failed >= 5 && pct(c.failed, settled) >= 5) {
      out.push({ title: `Clean up your ${channel} recipients`, detail: `${pct(c.failed, settled)} % of ${channel} messages failed in the last 30 days. Remove invalid recipients and confirm addresses at sign-up: repeated failures hurt delivery of everything else.`, priority: 'high' });
    }
  }
  const reasons = s.suppressions.by_reason;
  if ((reasons.complaint ?? 0) > 0) {
    out.push({ title: 'Bring spam complaints down', detail: `${reasons.complaint} recipient(s) marked your email as spam. Mail only people who opted in, make the unsubscribe link easy to find, and send less often to those who do not engage. Mailbox providers expect complaints below 0.1 %.`, priority: 'high' });
  }
  if ((reasons.bounce ?? 0) > 0 && pct(reasons.bounce, s.contacts) >= 2) {
    out.push({ title: 'Keep your email list clean', detail: `${reasons.bounce} address(es) bounced and are suppressed (${pct(reasons.bounce, s.contacts)} % of your contacts). Use double opt-in and remove contacts who have not engaged for months.`, priority: 'medium' });
  }
  const optedOut = (reasons.unsubscribe ?? 0) + (reasons.stop ?? 0);
  if (optedOut > 0 && pct(optedOut, s.contacts) >= 2) {
    out.push({ title: 'Check how often you send', detail: `${optedOut} contact(s) unsubscribed or replied STOP (${pct(optedOut, s.contacts)} % of your contacts). Let people choose topics or a lower frequency instead of leaving entirely.`, priority: 'medium' });
  }
  if (s.contacts < 500) {
    out.push({ title: 'Grow your audience', detail: `You have ${s.contacts} contact(s). Add a sign-up form to your site and checkout, and offer something useful in return for the address.`, priority: 'medium' });
  }
  if (s.messages.total > 0 && s.messages.marketing === 0) {
    out.push({ title: 'Put your audience to work', detail: 'Everything you sent in the last 30 days was transactional. A monthly newsletter with tips or news keeps your brand in mind between purchases.', priority: 'medium' });
  }
  if (Object.keys(s.messages.by_channel).length === 1) {
    out.push({ title: 'Try a second channel', detail: `All your messages went out by ${Object.keys(s.messages.by_channel)[0]}. Time-critical reminders often work better by SMS or push, longer stories by email.`, priority: 'low' });
  }
  out.push({ title: 'Check content before you send', detail: 'Run each campaign through the spam check (POST /v1/account/spam-check): a text part, an unsubscribe link and a calm subject line help your email reach the inbox.', priority: 'low' });
  out.push({ title: 'Send when people read', detail: 'Schedule marketing for the morning in your contacts’ own time zones, and keep quiet hours: messages that arrive at the right time are read more and reported less.', priority: 'low' });
  out.push({ title: 'Measure one change at a time', detail: 'Change one thing per campaign (the subject, the send time or the call to action) and compare delivery and clicks with the previous one.', priority: 'low' });
  return out.slice(0, 5);
}

const provenanceOf = (source: RecommendationsSource): Provenance =>
  'model' in source ? { degraded: false, model: source.model } : { degraded: true, degraded_reason: source.degraded_reason };

/** The answer of a day already recorded. */
const cachedAnswer = (row: AiRecommendationsRow): CoachAnswer & Provenance => ({
  day: row.day,
  recommendations: row.body,
  generated_at: row.generated_at.toISOString(),
  cached: true,
  ...provenanceOf(sourceOfRecommendations(row)),
});

/** Today's recommendations of an account with the coach enabled: the recorded ones, or new ones, recorded. */
export async function coachRecommendations(engage: Engage, accountId: string, metadata: EventMetadata): Promise<CoachAnswer & Provenance & { position?: Position }> {
  const settings = await findAiAccount(engage.pool, accountId);
  if (settings?.coach_status !== 'enabled') throw forbidden('the AI coach is not enabled for this account (POST /v1/account/ai-coach-request asks for it)');
  const now = engage.clock.now();
  const day = dayOf(now);
  const stored = await findAiRecommendations(engage.pool, accountId, day);
  if (stored) return cachedAnswer(stored);

  const snapshot = await accountSnapshot(engage.pool, accountId, now);
  const prompt = { system: systemPrompt('a marketing coach for small businesses', settings.brand_voice), user: recommendationsPrompt(snapshot), temperature: 0.4 };
  const answer = await withProvider<{ recommendations: AiRecommendation[] }>(
    engage,
    prompt,
    (content) => {
      const parsed = ProviderRecommendations.safeParse(jsonOfReply(content));
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: 'bad output' };
    },
    () => ({ recommendations: ruleBasedRecommendations(snapshot) }),
  );
  const source: RecommendationsSource = answer.degraded ? { degraded_reason: answer.degraded_reason } : { model: answer.model };
  // a provider that failed may answer on the next call: its fallback is not the day's answer (an
  // account without a provider gets the rules' answer recorded, as it would get no other that day)
  if (answer.degraded && answer.degraded_reason !== 'not_configured') {
    return { day, recommendations: answer.recommendations, generated_at: now.toISOString(), cached: false, ...provenanceOf(source) };
  }
  const recorded = await handleCommand(
    engage.store,
    aiDecider,
    aiStream(accountId),
    { type: 'RecordRecommendations', accountId, day, recommendations: answer.recommendations, source, now },
    metadata,
  );
  if (recorded.events.length === 0) {
    // another call of the same day recorded first: everyone gets that day's one answer
    const first = await findAiRecommendations(engage.pool, accountId, day);
    if (first) return cachedAnswer(first);
  }
  return { day, recommendations: answer.recommendations, generated_at: now.toISOString(), cached: false, ...provenanceOf(source), position: recorded.position };
}
