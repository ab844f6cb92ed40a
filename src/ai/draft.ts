// A whole email for ai-write: the deterministic draft of a brief, the draft a provider's JSON reply
// describes, and both rendered the same way, the HTML built from escaped text (provider text is
// never markup).
import { z } from 'zod';
import type { BrandVoiceProfile } from '../../commands/ai.ts';
import type { WriteInput } from './prompts.ts';
import { briefAsText, cutAtWord, normaliseWhitespace, splitSentences, suggestSubjects } from './text-fallbacks.ts';

export interface EmailDraft {
  subject: string;
  preheader: string;
  html: string;
  text: string;
}

/** engage puts the message's own unsubscribe URL here at dispatch (README "Suppressions and unsubscribes"). */
const UNSUBSCRIBE_PLACEHOLDER = '{{unsubscribe_url}}';

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const FONT = 'font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#222222';

/** The email as simple HTML: the subject as title, a hidden preheader, one <p> per paragraph, and the unsubscribe footer. */
export function renderDraftHtml(subject: string, preheader: string, paragraphs: readonly string[]): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n');
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:0;background:#f6f6f6">',
    `<div style="display:none;max-height:0;overflow:hidden">${escapeHtml(preheader)}</div>`,
    `<div style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;${FONT}">`,
    body,
    `<p style="margin:24px 0 0;font-size:12px;color:#666666">Don't want these emails? <a href="${UNSUBSCRIBE_PLACEHOLDER}" style="color:#666666">Unsubscribe</a>.</p>`,
    '</div>',
    '</body></html>',
  ].join('\n');
}

/**
 * A draft's text as a Liquid template's source (README "Templates"): what the writer wrote is kept
 * word for word (a `{{` or `{%` in it is output as itself, not read as Liquid), and the unsubscribe
 * placeholder stays the variable it is.
 */
export function asTemplateSource(text: string): string {
  return text
    .split(UNSUBSCRIBE_PLACEHOLDER)
    .map((part) => part.replace(/\{\{|\{%/g, (m) => `{{ '${m}' }}`))
    .join('{{ unsubscribe_url }}');
}

/** The draft of a subject, a preheader and body paragraphs: text and HTML from the same paragraphs. */
export function draftOf(subject: string, preheader: string, paragraphs: readonly string[]): EmailDraft {
  const text = `${paragraphs.join('\n\n')}\n\n--\nDon't want these emails? Unsubscribe: ${UNSUBSCRIBE_PLACEHOLDER}`;
  return { subject, preheader, text, html: renderDraftHtml(subject, preheader, paragraphs) };
}

const FORMAL = /formal|professional|serious|corporate/i;

/** The deterministic draft of a brief: subject from its key phrase, the brief as the body, the call to action, a sign-off. */
export function fallbackDraft(input: WriteInput, brandVoice: BrandVoiceProfile | null): EmailDraft {
  const body = briefAsText(input.brief);
  const bodyEnded = /[.!?…]$/.test(body) ? body : `${body}.`;
  const formal = FORMAL.test(input.tone ?? brandVoice?.tone ?? '');
  const brand = brandVoice?.name;
  const subject = suggestSubjects(body)[0];
  const firstSentence = splitSentences(body.split('\n')[0])[0] ?? body;
  const preheader = cutAtWord(firstSentence, 100);
  const length = input.length ?? 'medium';
  const paragraphs = [formal ? 'Hello,' : 'Hi there,', bodyEnded];
  if (length !== 'short') paragraphs.push(input.audience ? `We put this together with ${normaliseWhitespace(input.audience)} in mind.` : 'We put this together with you in mind.');
  if (length === 'long') {
    paragraphs.push("We'd love to hear what you think. Have a question? Just reply to this email: a real person reads every reply.");
  }
  if (input.call_to_action) {
    const cta = normaliseWhitespace(input.call_to_action);
    paragraphs.push(/[.!?…:]$/.test(cta) ? cta : `${cta}.`);
  }
  paragraphs.push(`${formal ? 'Kind regards' : 'Best'},\n${brand ? `The ${brand} team` : 'The team'}`);
  return draftOf(subject, preheader, paragraphs);
}

/** What ai-write asks the provider for. Lengths are generous: a model overshoots, and the draft is checked, not trusted. */
const ProviderDraft = z.object({
  subject: z.string().trim().min(1).max(200),
  preheader: z.string().trim().max(300).optional(),
  body: z.string().trim().min(1).max(20_000),
});

/** The draft a provider's reply (already read as JSON) describes, or undefined when it is not the JSON asked for. */
export function draftOfProviderJson(value: unknown): EmailDraft | undefined {
  const parsed = ProviderDraft.safeParse(value);
  if (!parsed.success) return undefined;
  const { subject, body } = parsed.data;
  const paragraphs = normaliseWhitespace(body).split(/\n\s*\n/).filter(Boolean);
  const preheader = parsed.data.preheader || cutAtWord(splitSentences(paragraphs[0] ?? '')[0] ?? '', 100);
  return draftOf(subject.replace(/\s+/g, ' '), preheader.replace(/\s+/g, ' '), paragraphs);
}
