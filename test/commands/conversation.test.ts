// The conversation decider's rules (commands/conversation.ts): one thread per contact and channel;
// a provider's repeat adds nothing; a contact writing to a closed thread opens it; replies and inbox
// changes need the thread to exist in the caller's account.
import { describe, expect, it } from 'vitest';
import { conversationDecider, conversationIdOf, type ConversationEvent, type InboundMessage } from '../../commands/conversation.ts';
import { AppError } from '../../src/errors.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(conversationDecider).given;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (m: number) => new Date(T0 + m * 60_000);
const iso = (m: number) => at(m).toISOString();

const ids = { id: 'conv_1', account_id: 'acct_1', contact_id: 'ct_1', channel: 'sms' as const };
const inbound = (m: number, sid: string, body = 'hello'): InboundMessage => ({
  message_id: `inb_${sid}`, from: '+15551230000', to: '+15550001111', body, provider: 'carrier', provider_message_id: sid, received_at: iso(m),
});
const receive = (m: number, sid: string, body?: string) => ({ type: 'Receive' as const, id: 'conv_1', accountId: 'acct_1', contactId: 'ct_1', channel: 'sms' as const, message: inbound(m, sid, body), now: at(m) });
const started = (m: number): ConversationEvent => ({ type: 'ConversationStarted', data: { ...ids, started_at: iso(m) } });
const received = (m: number, sid: string, body?: string): ConversationEvent => ({ type: 'InboundMessageReceived', data: { ...ids, ...inbound(m, sid, body) } });
const who = { id: 'conv_1', account_id: 'acct_1' };

describe('receiving a message', () => {
  it('the first message starts the thread', () => {
    given([]).when(receive(1, 'SM1')).then([started(1), received(1, 'SM1')]);
  });

  it('a later message is added to it', () => {
    given([started(1), received(1, 'SM1')]).when(receive(2, 'SM2', 'again')).then([received(2, 'SM2', 'again')]);
  });

  it("a provider's repeat of a message already received adds nothing", () => {
    given([started(1), received(1, 'SM1')]).when(receive(3, 'SM1')).thenNothingHappened();
  });

  it('a message to a closed thread opens it again', () => {
    given([started(1), received(1, 'SM1'), { type: 'ConversationStatusChanged', data: { ...who, status: 'closed', reason: 'api', at: iso(2) } }])
      .when(receive(3, 'SM2'))
      .then([{ type: 'ConversationStatusChanged', data: { ...who, status: 'open', reason: 'inbound', at: iso(3) } }, received(3, 'SM2')]);
  });
});

describe('replies and the inbox state', () => {
  const thread = [started(1), received(1, 'SM1')];

  it('a reply is recorded and reads the thread', () => {
    given(thread)
      .when({ type: 'RecordReply', accountId: 'acct_1', messageId: 'msg_1', now: at(2) })
      .then([
        { type: 'ConversationReplySent', data: { ...who, message_id: 'msg_1', at: iso(2) } },
        { type: 'ConversationReadChanged', data: { ...who, read: true, at: iso(2) } },
      ]);
  });

  it('the automatic answer to HELP leaves the thread unread', () => {
    given(thread)
      .when({ type: 'RecordReply', accountId: 'acct_1', messageId: 'msg_1', automatic: 'help', now: at(2) })
      .then([{ type: 'ConversationReplySent', data: { ...who, message_id: 'msg_1', automatic: 'help', at: iso(2) } }]);
  });

  it('closing, assigning and reading append one event each; what is unchanged appends nothing', () => {
    given(thread)
      .when({ type: 'Update', accountId: 'acct_1', status: 'closed', assignee: 'usr_1', read: true, now: at(2) })
      .then([
        { type: 'ConversationStatusChanged', data: { ...who, status: 'closed', reason: 'api', at: iso(2) } },
        { type: 'ConversationAssigned', data: { ...who, assignee: 'usr_1', at: iso(2) } },
        { type: 'ConversationReadChanged', data: { ...who, read: true, at: iso(2) } },
      ]);
    given(thread).when({ type: 'Update', accountId: 'acct_1', status: 'open', assignee: null, now: at(2) }).thenNothingHappened();
  });

  it("another account's thread, or none, is not found", () => {
    given(thread).when({ type: 'Update', accountId: 'acct_2', status: 'closed', now: at(2) }).thenThrows(AppError, (e) => e.statusCode === 404);
    given([]).when({ type: 'RecordReply', accountId: 'acct_1', messageId: 'msg_1', now: at(2) }).thenThrows(AppError, (e) => e.statusCode === 404);
  });

  it('an update that changes nothing at all is a validation error', () => {
    given(thread).when({ type: 'Update', accountId: 'acct_1', now: at(2) }).thenThrows(AppError, (e) => e.statusCode === 400);
  });
});

describe('conversation ids', () => {
  it('one per account, contact and channel, the same every time', () => {
    const a = conversationIdOf('acct_01JX0000000000000000000000', 'ct_01JX0000000000000000000001', 'sms');
    expect(a).toMatch(/^conv_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(conversationIdOf('acct_01JX0000000000000000000000', 'ct_01JX0000000000000000000001', 'sms')).toBe(a);
    expect(conversationIdOf('acct_01JX0000000000000000000000', 'ct_01JX0000000000000000000001', 'email')).not.toBe(a);
    expect(conversationIdOf('acct_01JX0000000000000000000000', 'ct_01JX0000000000000000000002', 'sms')).not.toBe(a);
  });
});
