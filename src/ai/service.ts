// The AI writing helpers (README "AI helpers"): ai-assist and ai-write (the writer add-on, once
// enabled) ask the provider when one is configured and answer with the deterministic fallback
// (degraded) when none is or it failed; and the account's AI settings: brand voice and the writer
// and coach add-ons.
import { accountStream } from '../../commands/account.ts';
import { type AddonState, type AiAddon, aiDecider, aiStream, type BrandVoiceProfile } from '../../commands/ai.ts';
import { findAiAccount } from '../../projections/ai.ts';
import { handleCommand } from '../command-handler.ts';
import type { Engage } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { isId } from '../ids.ts';
import { chatSettingsOf, completeChat } from './chat-completions.ts';
import { draftOfProviderJson, type EmailDraft } from './draft.ts';
import { assistPrompt, type AssistInput, jsonOfReply, plainTextOfReply, subjectsOfReply, systemPrompt, type WriteInput, writePrompt } from './prompts.ts';
import type { AssistResult } from './assist-fallback.ts';

/** How a helper's answer was made: by the provider (and which model), or by the fallback (and why). */
export type Provenance = { degraded: false; model: string } | { degraded: true; degraded_reason: string };

/** A provider answer turned into a helper's result, or the reason it could not be (it becomes `provider_error: <reason>`). */
type Reading<T> = { ok: true; value: T } | { ok: false; reason: string };

const BAD_OUTPUT = 'bad output';

/**
 * Asks the provider and reads its answer with `read`; on any failure (not configured, the provider
 * failing after retries, an answer `read` refuses) the fallback's result, flagged degraded.
 */
export async function withProvider<T>(
  engage: Engage,
  prompt: { system: string; user: string; temperature: number },
  read: (content: string) => Reading<T>,
  fallback: () => T | Promise<T>,
): Promise<T & Provenance> {
  const settings = chatSettingsOf(engage.config);
  if (!settings) return { ...(await fallback()), degraded: true, degraded_reason: 'not_configured' };
  const answer = await completeChat(settings, prompt, engage.log);
  if (!answer.ok) return { ...(await fallback()), degraded: true, degraded_reason: `provider_error: ${answer.reason}` };
  const reading = read(answer.content);
  if (!reading.ok) {
    engage.log.warn({ reason: reading.reason }, 'AI provider answered with output that is not what was asked for');
    return { ...(await fallback()), degraded: true, degraded_reason: `provider_error: ${reading.reason}` };
  }
  return { ...reading.value, degraded: false, model: answer.model };
}

/** The account's brand voice, if it set one. */
export async function brandVoiceOf(engage: Engage, accountId: string): Promise<BrandVoiceProfile | null> {
  return (await findAiAccount(engage.pool, accountId))?.brand_voice ?? null;
}

/** An answer longer than this is not an edit of a block of at most 20,000 characters. */
const MAX_ASSIST_OUTPUT = 40_000;

const TEMPERATURE: Record<AssistInput['action'], number> = { rewrite: 0.5, shorten: 0.3, lengthen: 0.6, friendly: 0.6, professional: 0.4, fix: 0, generate: 0.7, subjects: 0.8 };

/** POST /v1/account/ai-assist: one action on a block of text. */
export async function assist(engage: Engage, accountId: string, input: AssistInput): Promise<AssistResult & Provenance> {
  const brandVoice = await brandVoiceOf(engage, accountId);
  const prompt = { system: systemPrompt('an email and message copywriting assistant', brandVoice), user: assistPrompt(input), temperature: TEMPERATURE[input.action] };
  return withProvider<AssistResult>(
    engage,
    prompt,
    (content) => {
      if (input.action === 'subjects') {
        const subjects = subjectsOfReply(content);
        return subjects.length ? { ok: true, value: { action: 'subjects', subjects } } : { ok: false, reason: BAD_OUTPUT };
      }
      const text = plainTextOfReply(content);
      return text && text.length <= MAX_ASSIST_OUTPUT ? { ok: true, value: { action: input.action, text } } : { ok: false, reason: BAD_OUTPUT };
    },
    // the fallbacks are CPU work on text of up to 20,000 characters: off the request loop
    () => engage.cpu.run('assistFallback', { input, brandVoice }),
  );
}

/** POST /v1/account/ai-write: a whole email from a brief, for an account with the writer add-on enabled. */
export async function writeEmail(engage: Engage, accountId: string, input: WriteInput): Promise<EmailDraft & Provenance> {
  const settings = await findAiAccount(engage.pool, accountId);
  if (settings?.writer_status !== 'enabled') throw forbidden('the AI writer is not enabled for this account (POST /v1/account/ai-writer-request asks for it)');
  const brandVoice = settings.brand_voice;
  const prompt = { system: systemPrompt('an email marketing copywriter', brandVoice), user: writePrompt(input), temperature: 0.7 };
  return withProvider<EmailDraft>(
    engage,
    prompt,
    (content) => {
      const draft = draftOfProviderJson(jsonOfReply(content));
      return draft ? { ok: true, value: draft } : { ok: false, reason: BAD_OUTPUT };
    },
    () => engage.cpu.run('draftFallback', { input, brandVoice }),
  );
}

/** An add-on's status as the request and status endpoints show it. */
export const addonView = (state: AddonState) => ({ status: state.status, requested_at: state.requested_at, enabled: state.status === 'enabled' });

/** The operator's switch of an add-on (the CLI): the account must exist. */
export async function setAddon(
  engage: Engage,
  accountId: string,
  addon: AiAddon,
  enabled: boolean,
  metadata: EventMetadata,
): Promise<{ account_id: string; addon: AiAddon } & ReturnType<typeof addonView> & { position?: Position }> {
  if (!isId('account', accountId) || (await engage.store.readStream(accountStream(accountId), { maxCount: 1 })).length === 0) throw notFound('account');
  const now = engage.clock.now();
  const command = enabled ? ({ type: 'EnableAddon', accountId, addon, now } as const) : ({ type: 'DisableAddon', accountId, addon, now } as const);
  const result = await handleCommand(engage.store, aiDecider, aiStream(accountId), command, metadata);
  return { account_id: accountId, addon, ...addonView(result.state[addon]), position: result.position };
}
