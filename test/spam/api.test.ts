// POST /v1/account/spam-check over HTTP: {score, rating, issues} for a message, marketing by default
// (transactional mail needs no unsubscribe link), bad input a 400, no credential a 401.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { expectRejected } from '../support/http.ts';

const server = testServerForSuite();
let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Checker');
});

const check = (body: unknown) => server.call('POST', '/v1/account/spam-check', { key: a.key, body });
const TEXT = 'Our spring workshop on pruning roses takes place on Saturday morning in the community garden. Bring gloves and secateurs; we provide tea, cake and plenty of roses to practise on. Places are limited to twenty people.';

describe('POST /v1/account/spam-check', () => {
  it('a clean marketing email scores 0, good', async () => {
    const res = await check({ subject: 'Spring pruning workshop', html: `<p>${TEXT}</p><p><a href="https://garden.example/book">Book a place</a> · <a href="{{unsubscribe_url}}">Unsubscribe</a></p>`, text: `${TEXT}\nBook: https://garden.example/book\nUnsubscribe: {{unsubscribe_url}}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ score: 0, rating: 'good', issues: [] });
  });

  it('a spammy one scores poor and names every rule it breaks', async () => {
    const res = await check({ subject: 'ACT NOW!!! $$$ FREE GIFT', html: '<div><a href="https://bit.ly/x"><img src="https://garden.example/x.png"></a>' });
    expect(res.status).toBe(200);
    expect(res.body.rating).toBe('poor');
    expect(res.body.score).toBeGreaterThanOrEqual(5);
    const rules = res.body.issues.map((i: { rule: string }) => i.rule);
    expect(rules).toEqual(expect.arrayContaining(['missing_text_part', 'image_only', 'subject_all_caps', 'subject_exclamations', 'subject_money', 'spam_phrases', 'broken_html', 'url_shortener', 'missing_unsubscribe']));
    for (const issue of res.body.issues) expect(issue).toEqual({ rule: expect.any(String), message: expect.any(String), weight: expect.any(Number) });
  });

  it('marketing is the default; transactional mail needs no unsubscribe link', async () => {
    const body = { subject: 'Your booking', text: `${TEXT} Your booking: https://garden.example/b/42` };
    expect((await check(body)).body.issues.map((i: { rule: string }) => i.rule)).toEqual(['missing_unsubscribe']);
    expect((await check({ ...body, marketing: false })).body).toEqual({ score: 0, rating: 'good', issues: [] });
  });

  it('refuses bad input (400) and a missing credential (401)', async () => {
    expectRejected(await check({ html: '<p>x</p>' }), 'subject');
    expectRejected(await check({ subject: 'Hi' }), 'text');
    expectRejected(await check({ subject: 'Hi', text: 'x', marketing: 'yes' }), 'marketing');
    expectRejected(await check({ subject: 'Hi', text: 'x', from: 'me' }), 'from');
    expect((await server.call('POST', '/v1/account/spam-check', { body: { subject: 'Hi', text: 'x' } })).status).toBe(401);
  });
});
