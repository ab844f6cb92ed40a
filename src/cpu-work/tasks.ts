// The tasks a CPU work thread runs (src/cpu-work/pool.ts): pure functions of one structured-clonable
// input (sync, or a promise), each the whole of a request's heavy work. Imported only by the threads.
import type { BrandVoiceProfile } from '../../commands/ai.ts';
import { assistFallback } from '../ai/assist-fallback.ts';
import { fallbackDraft } from '../ai/draft.ts';
import type { AssistInput, WriteInput } from '../ai/prompts.ts';
import { parseInboundEmail } from '../conversations/inbound-email.ts';
import { parseDmarcReport } from '../domains/dmarc-report.ts';
import { readRow, type RowReader } from '../imports/rows.ts';
import { type CampaignMessagesInput, campaignMessages } from '../campaigns/messages.ts';
import { validateSends } from '../messages/validation.ts';
import { type SealJob, sealJobs } from '../personal-data/codec.ts';
import { checkSpam } from '../spam/score.ts';
import type { SpamMessage } from '../spam/message.ts';

export const CPU_TASKS = {
  assistFallback: ({ input, brandVoice }: { input: AssistInput; brandVoice: BrandVoiceProfile | null }) => assistFallback(input, brandVoice),
  draftFallback: ({ input, brandVoice }: { input: WriteInput; brandVoice: BrandVoiceProfile | null }) => fallbackDraft(input, brandVoice),
  spamCheck: (message: SpamMessage) => checkSpam(message),
  dmarcReport: (xml: string) => parseDmarcReport(xml),
  inboundEmail: (raw: Uint8Array) => parseInboundEmail(raw),
  // a slice of a contacts import's records read as rows (src/imports/run.ts)
  importRows: ({ records, reader }: { records: string[][]; reader: RowReader }) => records.map((r) => readRow(r, reader)),
  // the per-row work of a bulk and a campaign (README "The write path"), a slice of rows a task
  validateSends: ({ items, now, allowPrivateWebhooks }: { items: unknown[]; now: Date; allowPrivateWebhooks: boolean }) => validateSends(items, now, { allowPrivateWebhooks }),
  sealPersonalData: (jobs: SealJob[]) => sealJobs(jobs),
  campaignMessages: (input: CampaignMessagesInput) => campaignMessages(input),
};

export type CpuTasks = typeof CPU_TASKS;
