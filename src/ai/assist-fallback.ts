// The deterministic answer of each ai-assist action (README "AI helpers"), when no provider is
// configured or it failed. Pure: it runs on a CPU work thread (src/cpu-work).
import type { BrandVoiceProfile } from '../../commands/ai.ts';
import type { AssistInput } from './prompts.ts';
import { fixText, friendlyText, generateFromBrief, lengthenText, professionalText, rewriteText, shortenText, suggestSubjects } from './text-fallbacks.ts';

export type AssistResult = { action: AssistInput['action']; text: string } | { action: 'subjects'; subjects: string[] };

/** The deterministic answer of an ai-assist action. */
export function assistFallback(input: AssistInput, brandVoice: BrandVoiceProfile | null): AssistResult {
  const text = input.text ?? '';
  switch (input.action) {
    case 'rewrite':
      return { action: 'rewrite', text: rewriteText(text) };
    case 'shorten':
      return { action: 'shorten', text: shortenText(text) };
    case 'lengthen':
      return { action: 'lengthen', text: lengthenText(text, input.channel) };
    case 'friendly':
      return { action: 'friendly', text: friendlyText(text, input.channel) };
    case 'professional':
      return { action: 'professional', text: professionalText(text) };
    case 'fix':
      return { action: 'fix', text: fixText(text) };
    case 'generate':
      return { action: 'generate', text: generateFromBrief(input.brief ?? '', { brandName: brandVoice?.name, channel: input.channel }) };
    case 'subjects':
      return { action: 'subjects', subjects: suggestSubjects([input.subject, text].filter(Boolean).join('\n\n')) };
  }
}

