// The campaign aggregate (stream campaign-<id>): one message template sent to every member of a
// list or segment, resolved when it is sent. Created (scheduled for later, or to be sent now) →
// send started → batches accepted (each names the last contact it covered, so a send that stops
// resumes after it) → sent (campaign.sent); a scheduled campaign can be cancelled before its send
// starts; a campaign whose audience is gone when it is sent fails.
import type { Decider } from '../src/decider.ts';
import { AppError, notFound } from '../src/errors.ts';
import type { MessageContent } from './message.ts';

export type CampaignStatus = 'scheduled' | 'sending' | 'sent' | 'cancelled' | 'failed';
export type Audience = { type: 'list' | 'segment'; id: string };
/**
 * The message every member gets, addressed to the member's email or phone when sent: its content, or
 * the template (commands/template.ts) that makes each member's own from the member's contact and
 * `data` when the campaign is sent (`template_version`, else the newest then).
 */
export type CampaignTemplate = Omit<MessageContent, 'to' | 'message'> & {
  message?: string;
  template_id?: string;
  template_version?: number;
  data?: Record<string, unknown>;
};

export type CampaignEvent =
  | {
      type: 'CampaignCreated';
      data: { account_id: string; id: string; name: string; audience: Audience; template: CampaignTemplate; scheduled_at: string | null; created_at: string };
    }
  | { type: 'CampaignCancelled'; data: { account_id: string; id: string; cancelled_at: string } }
  | { type: 'CampaignSendStarted'; data: { account_id: string; id: string; started_at: string } }
  | {
      type: 'CampaignBatchAccepted';
      data: { account_id: string; id: string; through_contact_id: string; accepted: number; skipped: number; at: string };
    }
  | { type: 'CampaignSent'; data: { account_id: string; id: string; name: string; accepted: number; skipped: number; sent_at: string } }
  | { type: 'CampaignFailed'; data: { account_id: string; id: string; reason: string; failed_at: string } };

export interface CampaignState {
  status: 'none' | CampaignStatus;
  id?: string;
  accountId?: string;
  name?: string;
  audience?: Audience;
  template?: CampaignTemplate;
  scheduledAt?: string | null;
  createdAt?: string;
  /** when the send started: the time every message id of the campaign carries */
  startedAt?: string;
  /** the last contact id a batch covered (members are sent in contact id order) */
  throughContactId?: string;
  accepted: number;
  skipped: number;
}

export type CampaignCommand =
  | { type: 'CreateCampaign'; accountId: string; id: string; name: string; audience: Audience; template: CampaignTemplate; scheduledAt?: Date; now: Date }
  | { type: 'CancelCampaign'; accountId: string; now: Date }
  | { type: 'StartSend'; now: Date }
  | { type: 'RecordBatch'; throughContactId: string; accepted: number; skipped: number; now: Date }
  | { type: 'CompleteSend'; now: Date }
  | { type: 'FailSend'; reason: string; now: Date };

function visible(state: CampaignState, accountId: string) {
  if (state.status === 'none' || state.accountId !== accountId) throw notFound('campaign');
}

/** The send has started and not ended: batches may be recorded. */
function sending(state: CampaignState): boolean {
  return state.status === 'sending' && state.startedAt !== undefined;
}

export const campaignDecider: Decider<CampaignCommand, CampaignState, CampaignEvent> = {
  initialState: { status: 'none', accepted: 0, skipped: 0 },
  evolve(state, event) {
    switch (event.type) {
      case 'CampaignCreated': {
        const d = event.data;
        return {
          status: d.scheduled_at ? 'scheduled' : 'sending', id: d.id, accountId: d.account_id, name: d.name, audience: d.audience, template: d.template,
          scheduledAt: d.scheduled_at, createdAt: d.created_at, accepted: 0, skipped: 0,
        };
      }
      case 'CampaignCancelled':
        return { ...state, status: 'cancelled' };
      case 'CampaignSendStarted':
        return { ...state, status: 'sending', startedAt: event.data.started_at };
      case 'CampaignBatchAccepted':
        return {
          ...state, throughContactId: event.data.through_contact_id, accepted: state.accepted + event.data.accepted, skipped: state.skipped + event.data.skipped,
        };
      case 'CampaignSent':
        return { ...state, status: 'sent' };
      case 'CampaignFailed':
        return { ...state, status: 'failed' };
    }
  },
  decide(command, state) {
    const base = () => ({ account_id: state.accountId!, id: state.id! });
    switch (command.type) {
      case 'CreateCampaign': {
        if (state.status !== 'none') throw new AppError(409, 'conflict', 'campaign already exists');
        const scheduled = command.scheduledAt && command.scheduledAt.getTime() > command.now.getTime() ? command.scheduledAt.toISOString() : null;
        return [
          {
            type: 'CampaignCreated',
            data: {
              account_id: command.accountId, id: command.id, name: command.name, audience: command.audience, template: command.template,
              scheduled_at: scheduled, created_at: command.now.toISOString(),
            },
          },
        ];
      }
      case 'CancelCampaign':
        visible(state, command.accountId);
        if (state.status === 'cancelled') return [];
        if (state.status !== 'scheduled') throw new AppError(409, 'not_cancellable', `a ${state.status} campaign cannot be cancelled`, { status: state.status });
        return [{ type: 'CampaignCancelled', data: { ...base(), cancelled_at: command.now.toISOString() } }];
      case 'StartSend':
        // already started, or ended (sent, cancelled, failed): nothing to start
        if ((state.status === 'sending' && state.startedAt) || state.status === 'sent' || state.status === 'cancelled' || state.status === 'failed') return [];
        if (state.status === 'scheduled' && state.scheduledAt && Date.parse(state.scheduledAt) > command.now.getTime()) {
          throw new AppError(409, 'conflict', 'the campaign is not due yet');
        }
        if (state.status === 'none') throw notFound('campaign');
        return [{ type: 'CampaignSendStarted', data: { ...base(), started_at: command.now.toISOString() } }];
      case 'RecordBatch':
        if (!sending(state)) throw new AppError(409, 'conflict', 'the campaign is not sending');
        if (state.throughContactId !== undefined && command.throughContactId <= state.throughContactId) {
          throw new AppError(409, 'conflict', 'this batch was recorded already');
        }
        return [
          {
            type: 'CampaignBatchAccepted',
            data: { ...base(), through_contact_id: command.throughContactId, accepted: command.accepted, skipped: command.skipped, at: command.now.toISOString() },
          },
        ];
      case 'CompleteSend':
        if (state.status === 'sent') return [];
        if (!sending(state)) throw new AppError(409, 'conflict', 'the campaign is not sending');
        return [{ type: 'CampaignSent', data: { ...base(), name: state.name!, accepted: state.accepted, skipped: state.skipped, sent_at: command.now.toISOString() } }];
      case 'FailSend':
        if (state.status === 'failed') return [];
        if (state.status !== 'sending' && state.status !== 'scheduled') throw new AppError(409, 'conflict', `a ${state.status} campaign cannot fail`);
        return [{ type: 'CampaignFailed', data: { ...base(), reason: command.reason, failed_at: command.now.toISOString() } }];
    }
  },
};

export const campaignStream = (id: string) => `campaign-${id}`;
export const CAMPAIGN_EVENT_TYPES = ['CampaignCreated', 'CampaignCancelled', 'CampaignSendStarted', 'CampaignBatchAccepted', 'CampaignSent', 'CampaignFailed'] as const;
