// Click tracking's pure rules: the message decider takes a click in any state after the message
// exists without changing its status (so a click may overtake `sent`); where click links and link
// domains' CNAMEs point; and what a provider receives of an HTML email (its links signed for the message).
import { describe, expect, it } from 'vitest';
import { type MessageAcceptedData, type MessageEvent, messageDecider } from '../../commands/message.ts';
import type { OutboundMessage } from '../../src/channels/port.ts';
import { fold } from '../../src/decider.ts';
import { linkDomainTarget } from '../../src/domains/link-domains.ts';
import { clickBaseUrl, withTrackedLinks } from '../../src/tracking/clicks.ts';
import { readClickToken } from '../../src/tracking/links.ts';
import { signOpenToken, withOpenPixel } from '../../src/tracking/opens.ts';
import { DeciderSpecification, domainError } from '../support/decider-spec.ts';

const given = DeciderSpecification.for(messageDecider).given;

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();
const base = { id: 'msg_1', account_id: 'acct_1' };
const acceptedData: MessageAcceptedData = { ...base, channel: 'email', to: 'reader@inbox.test', message: 'Hi', htmlmessage: '<a href="https://shop.test/">Shop</a>', transactional: false, status: 'queued', created_at: iso(0) };
const accepted: MessageEvent = { type: 'MessageAccepted', data: acceptedData };
const claimed: MessageEvent = { type: 'MessageDispatching', data: { ...base, at: iso(1), worker: 'w1', attempt: 1, lease_until: iso(31) } };
const sent: MessageEvent = { type: 'MessageSent', data: { ...base, channel: 'email', at: iso(2), provider: 'smtp', provider_message_id: 'p1' } };
const delivered: MessageEvent = { type: 'MessageDelivered', data: { ...base, channel: 'email', at: iso(3), provider_message_id: 'p1' } };
const click = (seconds: number, url = 'https://shop.test/') => ({ type: 'RecordClick' as const, now: at(seconds), url, addressHash: 'h1' });
/** a click as recorded: it names the message's channel and whether it is the message's first click (StatusFacts) */
const clicked = (seconds: number, url = 'https://shop.test/', first = true): MessageEvent => ({ type: 'MessageLinkClicked', data: { ...base, channel: 'email', first, at: iso(seconds), url, address_hash: 'h1' } });

describe('a click on the message stream', () => {
  it('is recorded once the message is sent or delivered, every time it happens', () => {
    given([accepted, claimed, sent]).when(click(5)).then([clicked(5)]);
    // the second click of the message is not its first
    given([accepted, claimed, sent, delivered, clicked(5)]).when(click(6, 'https://shop.test/b')).then([clicked(6, 'https://shop.test/b', false)]);
  });

  it('is recorded while the stream has not yet recorded the send it follows (the provider took it, `sent` is still to come)', () => {
    given([accepted, claimed]).when(click(2)).then([clicked(2)]);
    given([accepted]).when(click(2)).then([clicked(2)]);
  });

  it('changes nothing of the message but that it was clicked: its status, its claim and the record of its send that follows', () => {
    const before = fold(messageDecider, [accepted, claimed]);
    const after = fold(messageDecider, [accepted, claimed, clicked(2)]);
    expect(after).toStrictEqual({ ...before, clicked: true });
    given([accepted, claimed, clicked(2)]).when({ type: 'RecordSent', now: at(3), provider: 'smtp', providerMessageId: 'p1' }).then([{ ...sent, data: { ...sent.data, at: iso(3) } }]);
  });

  it('a message that does not exist takes no click (404)', () => {
    given([]).when(click(1)).thenThrows(domainError('not_found', 404));
  });
});

describe('where links point', () => {
  it("click links: the account's verified link domain over https, else LINK_TRACKING_HOST over https, else the service's own base", () => {
    expect(clickBaseUrl({ domain: 'click.acme.test' }, { LINK_TRACKING_HOST: 'links.engage.test' }, 'http://127.0.0.1:3000')).toBe('https://click.acme.test');
    expect(clickBaseUrl(undefined, { LINK_TRACKING_HOST: 'Links.Engage.Test:8443' }, 'http://127.0.0.1:3000')).toBe('https://links.engage.test:8443');
    expect(clickBaseUrl(undefined, {}, 'https://api.engage.test/prefix/')).toBe('https://api.engage.test/prefix');
  });

  it("a link domain's CNAME target: LINK_TRACKING_HOST without its port, else PUBLIC_BASE_URL's host, else links.engage.local", () => {
    expect(linkDomainTarget({ LINK_TRACKING_HOST: 'Links.Engage.Test:8443', PUBLIC_BASE_URL: 'https://api.engage.test' })).toBe('links.engage.test');
    expect(linkDomainTarget({ PUBLIC_BASE_URL: 'https://api.engage.test:8080/v' })).toBe('api.engage.test');
    expect(linkDomainTarget({})).toBe('links.engage.local');
  });
});

describe('what the provider receives', () => {
  const key = Buffer.alloc(32, 7);
  const email = (htmlmessage?: string, channel: OutboundMessage['channel'] = 'email'): OutboundMessage => ({ id: 'msg_1', accountId: 'acct_1', channel, to: 'reader@inbox.test', message: 'Hi https://shop.test/', ...(htmlmessage !== undefined ? { htmlmessage } : {}) });

  it('every http(s) link of the HTML goes through /c/<token>, and each token names the message and that link', () => {
    const html = '<p><a href="https://shop.test/a?x=1&amp;y=2">A</a> <a href="http://blog.test/">B</a> <a href="mailto:x@y.test">M</a></p>';
    const out = withTrackedLinks(email(html), key, 'https://click.acme.test');
    const hrefs = [...out.htmlmessage!.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs[2]).toBe('mailto:x@y.test');
    expect(hrefs.slice(0, 2).map((h) => h.replace(/\/c\/.*$/, ''))).toEqual(['https://click.acme.test', 'https://click.acme.test']);
    expect(hrefs.slice(0, 2).map((h) => readClickToken(key, h.split('/c/')[1]))).toEqual([
      { messageId: 'msg_1', url: 'https://shop.test/a?x=1&y=2' },
      { messageId: 'msg_1', url: 'http://blog.test/' },
    ]);
    // the text body is left as it is
    expect(out.message).toBe('Hi https://shop.test/');
  });

  it('keeps a link marked data-engage-track="off" (the open pixel added), and leaves email without HTML and other channels untouched', () => {
    const html = '<a data-engage-track="off" href="https://secret.test/reset">Reset</a>';
    expect(withTrackedLinks(email(html), key, 'https://click.acme.test').htmlmessage).toBe(withOpenPixel(html, `https://click.acme.test/o/${signOpenToken(key, 'msg_1')}`));
    const plain = email();
    expect(withTrackedLinks(plain, key, 'https://click.acme.test')).toBe(plain);
    const sms = email('<a href="https://shop.test/">x</a>', 'sms');
    expect(withTrackedLinks(sms, key, 'https://click.acme.test')).toBe(sms);
  });
});
