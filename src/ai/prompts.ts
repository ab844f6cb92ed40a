// What the helpers ask the provider: the system prompt (role, rules, the brand voice), the user
// message of each helper, and reading a reply that was asked to be JSON.
import type { BrandVoiceProfile } from '../../commands/ai.ts';
import { brandVoiceInstructions } from './brand-voice.ts';

export const ASSIST_ACTIONS = ['rewrite', 'shorten', 'lengthen', 'friendly', 'professional', 'fix', 'generate', 'subjects'] as const;
export type AssistAction = (typeof ASSIST_ACTIONS)[number];

export interface AssistInput {
  action: AssistAction;
  text?: string;
  brief?: string;
  channel?: string;
  subject?: string;
}

export interface WriteInput {
  brief: string;
  audience?: string;
  tone?: string;
  length?: 'short' | 'medium' | 'long';
  call_to_action?: string;
}

/** The system prompt of every helper: its role and rules, then the brand voice when the account set one. */
export function systemPrompt(role: string, brandVoice: BrandVoiceProfile | null): string {
  const parts = [
    `You are ${role} inside a customer messaging platform (email, SMS, WhatsApp, push).`,
    'Write clear, honest copy. Never invent facts, prices, dates or links that the user did not give. Avoid spam trigger phrases, ALL CAPS and runs of exclamation marks.',
  ];
  if (brandVoice) parts.push(brandVoiceInstructions(brandVoice));
  return parts.join('\n\n');
}

const ASSIST_INSTRUCTIONS: Record<Exclude<AssistAction, 'generate' | 'subjects'>, string> = {
  rewrite: 'Rewrite the text so it reads clearly and naturally, keeping its meaning and length.',
  shorten: 'Shorten the text to about half its length, keeping the key message and any call to action.',
  lengthen: 'Expand the text with a little more helpful detail and a closing call to action, without inventing facts.',
  friendly: 'Rewrite the text in a warmer, friendly, conversational tone.',
  professional: 'Rewrite the text in a polished, professional tone: no slang, no emoji, no exclamation runs.',
  fix: 'Correct spelling, grammar and punctuation only. Change nothing else.',
};

/** The user message of an ai-assist action. */
export function assistPrompt(input: AssistInput): string {
  const context = [input.channel ? `Channel: ${input.channel}.` : '', input.subject ? `Email subject: ${input.subject}` : ''].filter(Boolean).join('\n');
  const head = context ? `${context}\n\n` : '';
  if (input.action === 'generate') {
    return `${head}Write the message described by this brief. Reply with the message text only, no preamble or notes.\n\nBrief:\n"""\n${input.brief}\n"""`;
  }
  if (input.action === 'subjects') {
    return `${head}Suggest 5 email subject lines for the text below, each under 60 characters. Reply with one subject per line, nothing else.\n\nText:\n"""\n${input.text}\n"""`;
  }
  return `${head}${ASSIST_INSTRUCTIONS[input.action]} Reply with the resulting text only, no preamble, quotes or notes.\n\nText:\n"""\n${input.text}\n"""`;
}

const LENGTH_WORDS = { short: 'about 80 words', medium: 'about 150 words', long: 'about 300 words' } as const;

/** The user message of ai-write: a whole email, as JSON. */
export function writePrompt(input: WriteInput): string {
  const lines = [
    `Write a marketing email of ${LENGTH_WORDS[input.length ?? 'medium']} from the brief below.`,
    input.audience ? `Audience: ${input.audience}` : '',
    input.tone ? `Tone: ${input.tone}` : '',
    input.call_to_action ? `Call to action: ${input.call_to_action}` : '',
    'Reply with JSON only, exactly this shape: {"subject": "…", "preheader": "…", "body": "…"}.',
    'subject: under 60 characters. preheader: one sentence under 100 characters. body: plain text, paragraphs separated by a blank line, no HTML, no markdown.',
    `Brief:\n"""\n${input.brief}\n"""`,
  ];
  return lines.filter(Boolean).join('\n');
}

/** The user message of ai-recommendations: the account's figures, advice as JSON. */
export function recommendationsPrompt(snapshot: unknown): string {
  return [
    'Here are the figures of a customer messaging account (the last 30 days, and its audience now):',
    JSON.stringify(snapshot, null, 2),
    'Give 3 to 5 concrete, personalised marketing recommendations based on these figures.',
    'Reply with JSON only, exactly this shape: {"recommendations": [{"title": "…", "detail": "…", "priority": "high" | "medium" | "low"}]}.',
    'title: under 100 characters. detail: two or three sentences.',
  ].join('\n');
}

/** The JSON object of a reply asked to be JSON: bare, or in a ```json fence, or the outermost {…} of the text. */
export function jsonOfReply(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  const candidates = [content.trim(), fenced?.[1]?.trim()];
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(content.slice(start, end + 1));
  for (const c of candidates) {
    if (!c) continue;
    try {
      const value: unknown = JSON.parse(c);
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      /* the next candidate */
    }
  }
  return undefined;
}

/** A reply asked for plain text: without a wrapping code fence or quotes a model sometimes adds. */
export function plainTextOfReply(content: string): string {
  let text = content.trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(text);
  if (fenced) text = fenced[1].trim();
  if (text.length > 1 && /^["“].*["”]$/s.test(text) && !/["“”]/.test(text.slice(1, -1))) text = text.slice(1, -1).trim();
  return text;
}

/** Subject lines of a reply asked for one per line: numbering, bullets and quotes removed, at most five. */
export function subjectsOfReply(content: string): string[] {
  const subjects = plainTextOfReply(content)
    .split('\n')
    .map((l) => l.trim().replace(/^(\d+[.)]|[-*•])\s*/, '').replace(/^["“'](.*)["”']$/, '$1').trim())
    .filter((l) => l.length > 0 && l.length <= 150);
  return [...new Set(subjects)].slice(0, 5);
}
