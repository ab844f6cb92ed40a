// The brand voice profile an account's AI helpers write in: its shape and limits (what PUT
// /v1/account/brand-voice accepts), and how it reads inside a system prompt.
import { z } from 'zod';
import type { BrandVoiceProfile } from '../../commands/ai.ts';

const line = (max: number) => z.string().trim().min(1).max(max);
const words = z.array(line(60)).max(50);

export const BrandVoiceBody = z.strictObject({
  name: line(100).optional(),
  tone: line(200).optional(),
  audience: line(500).optional(),
  style_notes: line(2_000).optional(),
  words_to_use: words.optional(),
  words_to_avoid: words.optional(),
  sample: line(5_000).optional(),
});

/** The profile as it is kept: fields given, empty word lists left out. */
export function profileOf(body: z.infer<typeof BrandVoiceBody>): BrandVoiceProfile | null {
  const profile: BrandVoiceProfile = {};
  for (const [key, value] of Object.entries(body) as [keyof BrandVoiceProfile, string | string[] | undefined][]) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    (profile as Record<string, unknown>)[key] = value;
  }
  return Object.keys(profile).length ? profile : null;
}

/** The profile as lines of a system prompt. */
export function brandVoiceInstructions(profile: BrandVoiceProfile): string {
  const lines = ['Write in this brand voice:'];
  if (profile.name) lines.push(`- Brand: ${profile.name}`);
  if (profile.tone) lines.push(`- Tone: ${profile.tone}`);
  if (profile.audience) lines.push(`- Audience: ${profile.audience}`);
  if (profile.style_notes) lines.push(`- Style notes: ${profile.style_notes}`);
  if (profile.words_to_use?.length) lines.push(`- Prefer these words: ${profile.words_to_use.join(', ')}`);
  if (profile.words_to_avoid?.length) lines.push(`- Never use these words: ${profile.words_to_avoid.join(', ')}`);
  if (profile.sample) lines.push(`- A sample of the voice:\n"""\n${profile.sample}\n"""`);
  return lines.join('\n');
}
