// The AI helpers and the spam check (README "AI helpers", "Spam
// check"): text assist and whole emails (always answering, degraded without a provider), the brand
// voice, the writer and coach add-on requests, the coach's daily recommendations.
import { z, type ZodType } from 'zod';
import { type AddonStatus, type AiAddon, aiDecider, aiStream } from '../../../commands/ai.ts';
import { findAiAccount } from '../../../projections/ai.ts';
import { BrandVoiceBody, profileOf } from '../../ai/brand-voice.ts';
import { ASSIST_ACTIONS, type AssistAction } from '../../ai/prompts.ts';
import { coachRecommendations } from '../../ai/recommendations.ts';
import { addonView, assist, writeEmail } from '../../ai/service.ts';
import { runCommand } from '../../command-handler.ts';
import type { Engage } from '../../context.ts';
import { inputErrorOf } from '../../cpu-work/pool.ts';
import type { SpamRating } from '../../spam/score.ts';
import type { AppDeps } from '../deps.ts';
import { metadataOf } from '../common.ts';
import { DateTime } from '../openapi.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const AI = ['ai'];
const CHANNELS = ['sms', 'rcs', 'whatsapp', 'voice', 'email', 'push'] as const;

const AssistBody = z
  .strictObject({
    action: z.enum(ASSIST_ACTIONS),
    text: z.string().max(20_000).optional(),
    brief: z.string().max(5_000).optional(),
    channel: z.enum(CHANNELS).optional(),
    subject: z.string().max(998).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'generate') {
      if (!body.brief?.trim()) ctx.addIssue({ code: 'custom', path: ['brief'], message: 'required for generate' });
    } else if (!body.text?.trim()) ctx.addIssue({ code: 'custom', path: ['text'], message: `required for ${body.action}` });
  });

export const WriteBody = z.strictObject({
  brief: z.string().trim().min(1).max(5_000),
  audience: z.string().trim().min(1).max(500).optional(),
  tone: z.string().trim().min(1).max(200).optional(),
  length: z.enum(['short', 'medium', 'long']).optional(),
  call_to_action: z.string().trim().min(1).max(200).optional(),
});

const RequestBody = z.strictObject({ note: z.string().trim().min(1).max(1_000).optional() });

// the coach takes no input: no body, or an empty object (README "API conventions": unknown fields are a 400)
const NoBody = z.strictObject({});

const SpamCheckBody = z
  .strictObject({
    subject: z.string().max(2_000),
    html: z.string().max(2_000_000).optional(),
    text: z.string().max(2_000_000).optional(),
    marketing: z.boolean().default(true),
  })
  .superRefine((body, ctx) => {
    if (!body.html?.trim() && !body.text?.trim()) ctx.addIssue({ code: 'custom', path: ['text'], message: 'html or text is required' });
  });

/** How a helper's answer was made: by the provider (its model), or by the built-in fallback (and why). */
export const Provenance = {
  degraded: z.boolean().describe('true: made by the built-in fallback, without the provider'),
  model: z.string().optional().describe("the provider's model (not degraded)"),
  degraded_reason: z.string().optional().describe('why the fallback answered: not_configured, or provider_error: …'),
};
const AssistOut = z.union([
  z.object({ action: z.enum(ASSIST_ACTIONS.filter((a) => a !== 'subjects') as [AssistAction, ...AssistAction[]]), text: z.string(), ...Provenance }),
  z.object({ action: z.literal('subjects'), subjects: z.array(z.string()), ...Provenance }),
]);
const EmailDraftOut = z.object({ subject: z.string(), preheader: z.string(), html: z.string(), text: z.string(), ...Provenance });
const AddonStatusField = z.enum(['none', 'requested', 'enabled'] satisfies AddonStatus[]);
const AddonRequestOut = z.object({ status: AddonStatusField, requested_at: DateTime.nullable().describe('when the account asked (null: enabled without asking)') });
const AddonOut = AddonRequestOut.extend({ enabled: z.boolean() });
const RecommendationsOut = z.object({
  day: z.string().describe('YYYY-MM-DD (UTC)'),
  recommendations: z.array(z.object({ title: z.string(), detail: z.string(), priority: z.enum(['high', 'medium', 'low']) })),
  generated_at: DateTime,
  cached: z.boolean().describe("the day's recommendations, made by an earlier call"),
  ...Provenance,
});
const BrandVoiceOut = z.object({
  brand_voice: z
    .object({
      name: z.string().optional(),
      tone: z.string().optional(),
      audience: z.string().optional(),
      style_notes: z.string().optional(),
      words_to_use: z.array(z.string()).optional(),
      words_to_avoid: z.array(z.string()).optional(),
      sample: z.string().optional(),
    })
    .nullable()
    .describe('the profile the AI helpers write in (null: none set)'),
});
const SpamReportOut = z.object({
  score: z.number().describe('the sum of the issues’ weights'),
  rating: z.enum(['good', 'fair', 'poor'] satisfies SpamRating[]),
  issues: z.array(z.object({ rule: z.string(), message: z.string(), weight: z.number() })),
});

export function aiRoutes({ engage }: AppDeps): AnyRoute[] {
  /** An AI helper writing for the caller's account from the body; it always answers, from the built-in fallback without a provider. */
  const textHelper = <B>(
    url: string,
    operationId: string,
    summary: string,
    body: ZodType<B>,
    answer: ZodType,
    write: (engage: Engage, accountId: string, body: B) => Promise<unknown>,
  ) =>
    defineRoute({
      method: 'POST',
      url,
      auth: 'key_or_login',
      scope: 'read',
      operationId,
      summary: `${summary}; always answers (degraded: true from the built-in fallback)`,
      tags: ['account'],
      body,
      responses: { 200: answer },
      async handler({ body, auth }) {
        return write(engage, auth.accountId, body);
      },
    });

  const addonRoutes = (addon: AiAddon, what: string): AnyRoute[] => [
    defineRoute({
      method: 'POST',
      url: `/v1/account/ai-${addon}-request`,
      auth: 'key_or_login',
      operationId: `requestAi${addon[0]!.toUpperCase()}${addon.slice(1)}`,
      summary: `Ask for the ${what} add-on; an operator enables it. Asking again while a request stands, or once enabled, changes nothing`,
      tags: ['account'],
      body: RequestBody,
      responses: { 202: AddonRequestOut.describe('the request, standing (or the add-on, enabled already)') },
      async handler({ body, auth, req, reply }) {
        const command = { type: 'RequestAddon' as const, accountId: auth.accountId, addon, note: body.note, now: engage.clock.now() };
        const result = await runCommand(engage, metadataOf(req), AI, { decider: aiDecider, streamId: aiStream(auth.accountId), command });
        const { status, requested_at } = addonView(result.state[addon]);
        reply.code(202);
        return { status, requested_at };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `/v1/account/ai-${addon}-status`,
      auth: 'key_or_login',
      operationId: `getAi${addon[0]!.toUpperCase()}${addon.slice(1)}Status`,
      summary: `Whether the ${what} add-on is enabled, requested, or neither`,
      tags: ['account'],
      responses: { 200: AddonOut },
      async handler({ auth }) {
        const row = await findAiAccount(engage.pool, auth.accountId);
        const requested = row?.[`${addon}_requested_at`];
        return addonView({ status: row?.[`${addon}_status`] ?? 'none', requested_at: requested ? requested.toISOString() : null });
      },
    }),
  ];

  return [
    textHelper('/v1/account/ai-assist', 'assistText', 'Text assist for one block: rewrite, shorten, lengthen, friendly, professional, fix, generate or subjects', AssistBody, AssistOut, assist),
    textHelper('/v1/account/ai-write', 'writeEmail', 'A whole email (subject, preheader, HTML, text) from a brief', WriteBody, EmailDraftOut, writeEmail),
    ...addonRoutes('writer', 'AI writer'),
    ...addonRoutes('coach', 'AI coach'),
    defineRoute({
      method: 'POST',
      url: '/v1/account/ai-recommendations',
      auth: 'key_or_login',
      scope: 'read',
      operationId: 'getAiRecommendations',
      summary: "The AI coach's marketing recommendations for today (UTC), made once a day and then cached; 403 unless the coach is enabled",
      tags: ['account'],
      body: NoBody,
      responses: { 200: RecommendationsOut },
      async handler({ auth, req }) {
        const { position: _position, ...answer } = await runCommand(engage, metadataOf(req), AI, (metadata) => coachRecommendations(engage, auth.accountId, metadata));
        return answer;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/brand-voice',
      auth: 'key_or_login',
      operationId: 'getBrandVoice',
      summary: 'The brand voice the AI helpers write in (null when none is set)',
      tags: ['account'],
      responses: { 200: BrandVoiceOut },
      async handler({ auth }) {
        return { brand_voice: (await findAiAccount(engage.pool, auth.accountId))?.brand_voice ?? null };
      },
    }),
    defineRoute({
      method: 'PUT',
      url: '/v1/account/brand-voice',
      auth: 'key_or_login',
      operationId: 'setBrandVoice',
      summary: 'Sets the brand voice (replacing the whole profile); null or {} clears it',
      tags: ['account'],
      // a null body arrives as {} (src/http/route.ts), which clears
      body: BrandVoiceBody,
      responses: { 200: BrandVoiceOut },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ body, auth, req }) {
        const profile = profileOf(body);
        const command = { type: 'SetBrandVoice' as const, accountId: auth.accountId, profile, now: engage.clock.now() };
        const result = await runCommand(engage, metadataOf(req), AI, { decider: aiDecider, streamId: aiStream(auth.accountId), command });
        return { brand_voice: result.state.brandVoice };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/spam-check',
      auth: 'key_or_login',
      scope: 'read',
      operationId: 'checkSpam',
      summary: 'Scores an email against the spam rules: {score, rating, issues:[{rule, message, weight}]}',
      tags: ['account'],
      body: SpamCheckBody,
      responses: { 200: SpamReportOut },
      async handler({ body }) {
        // parsing up to 2 MB of untrusted HTML: off the request loop, time-limited
        return engage.cpu.run('spamCheck', body).catch((error) => inputErrorOf(error, body.html ? 'html' : 'text'));
      },
    }),
  ];
}
