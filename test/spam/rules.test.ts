// The spam check's rules (src/spam/rules.ts), one by one: a clean message breaks none, and for every
// rule a message that breaks exactly that rule reports it, with its weight; the score is the sum of
// the weights and the rating its band. A rule added without a case here fails the last test.
import { describe, expect, it } from 'vitest';
import { SPAM_RULES } from '../../src/spam/rules.ts';
import { checkSpam, ratingOf } from '../../src/spam/score.ts';
import type { SpamMessage } from '../../src/spam/message.ts';

const PARAGRAPH = 'Our autumn menu arrives next week with slow roasted squash, warm apple crumble and three new soups. Members can book a table from Monday, and every booking this month includes a tasting of the new dishes for the whole table.';
const html = (body: string, extra = '') =>
  `<!doctype html><html><head><title>Autumn menu</title></head><body><h1>Autumn menu</h1><p>${PARAGRAPH}</p>${body}<p>${extra}<a href="https://acme.example/unsubscribe">Unsubscribe</a></p></body></html>`;

const clean: SpamMessage = {
  subject: 'Our autumn menu is here',
  html: html('<p><a href="https://acme.example/menu">See the menu</a></p>'),
  text: `${PARAGRAPH}\n\nSee the menu: https://acme.example/menu\nUnsubscribe: https://acme.example/unsubscribe`,
  marketing: true,
};

const rulesOf = (m: SpamMessage) => checkSpam(m).issues.map((i) => i.rule);

/** For each rule: a message that breaks it and no other. */
const CASES: Record<string, SpamMessage> = {
  missing_text_part: { ...clean, text: undefined },
  image_only: {
    ...clean,
    html: '<html><body><img src="https://acme.example/offer.png" alt=""></body></html>',
    text: 'See our offer. Unsubscribe: https://acme.example/unsubscribe',
  },
  image_heavy: { ...clean, html: html('<img src="https://acme.example/a.png" alt=""><img src="https://acme.example/b.png" alt=""><img src="https://acme.example/c.png" alt="">') },
  subject_missing: { ...clean, subject: '   ' },
  subject_too_long: { ...clean, subject: `Our autumn menu is here, ${'with soups and crumbles and more, '.repeat(3)}book now` },
  subject_all_caps: { ...clean, subject: 'OUR AUTUMN MENU IS HERE' },
  subject_exclamations: { ...clean, subject: 'Our autumn menu is here!!' },
  subject_money: { ...clean, subject: 'Our autumn menu is here $$$' },
  spam_phrases: { ...clean, text: `${clean.text}\nAct now, this is a once in a lifetime chance.` },
  low_text_to_link_ratio: {
    ...clean,
    html: html(['menu', 'book', 'gift', 'team', 'wine', 'jobs', 'shop', 'news', 'blog', 'map', 'faq', 'press'].map((p) => `<a href="https://acme.example/${p}">${p}</a> `).join('')),
  },
  broken_html: { ...clean, html: html('<div><p>See <b>the <i>menu</b></i></p>') },
  url_shortener: { ...clean, html: html('<p><a href="https://bit.ly/3xYz">See the menu</a></p>') },
  missing_unsubscribe: { ...clean, html: clean.html!.replace(/<a href="https:\/\/acme.example\/unsubscribe">Unsubscribe<\/a>/, ''), text: clean.text!.replace(/\nUnsubscribe: \S+/, '') },
  hidden_text: { ...clean, html: html(`<div style="display: none">${'hidden words '.repeat(15)}</div>`) },
  javascript: { ...clean, html: html('<p><a href="https://acme.example/menu" onclick="track()">See the menu</a></p>') },
  forms: { ...clean, html: html('<form action="https://acme.example/rsvp"><input type="email" name="email"></form>') },
  mismatched_link_text: { ...clean, html: html('<p><a href="https://login.evil.example/acme">www.acme.example/menu</a></p>') },
};

describe('a clean message', () => {
  it('breaks no rule: score 0, good', () => {
    expect(checkSpam(clean)).toEqual({ score: 0, rating: 'good', issues: [] });
  });

  it('a text-only transactional message with a link needs no unsubscribe and is clean', () => {
    expect(checkSpam({ subject: 'Your receipt', text: `Thanks for your order. ${PARAGRAPH} Your receipt: https://acme.example/r/1`, marketing: false }).issues).toEqual([]);
  });
});

describe('each rule', () => {
  it.each(Object.keys(CASES))('%s: a message breaking only it reports only it, with its weight', (rule) => {
    const report = checkSpam(CASES[rule]);
    expect(report.issues.map((i) => i.rule)).toEqual([rule]);
    const weight = SPAM_RULES.find((r) => r.id === rule)!.weight;
    expect(report.issues[0]).toEqual({ rule, message: expect.any(String), weight });
    expect(report.score).toBe(weight);
  });

  it('every rule has a case above', () => {
    expect(Object.keys(CASES).sort()).toEqual(SPAM_RULES.map((r) => r.id).sort());
  });
});

describe('rule details', () => {
  it('missing_unsubscribe accepts the {{unsubscribe_url}} placeholder, an opt-out link, and skips transactional mail', () => {
    const bare = CASES.missing_unsubscribe;
    expect(rulesOf({ ...bare, html: bare.html!.replace('</body>', '<p><a href="{{ unsubscribe_url }}">Stop these emails</a></p></body>') })).toEqual([]);
    expect(rulesOf({ ...bare, html: bare.html!.replace('</body>', '<p><a href="https://acme.example/prefs">Opt out</a></p></body>') })).toEqual([]);
    expect(rulesOf({ ...bare, marketing: false })).toEqual([]);
  });

  it('hidden_text allows a preheader; tiny fonts count as hidden', () => {
    expect(rulesOf({ ...clean, html: html('<span style="display:none;max-height:0">Squash, crumble and soups: the autumn menu.</span>') })).toEqual([]);
    expect(rulesOf({ ...clean, html: html(`<p style="font-size:1px">${'tiny words '.repeat(20)}</p>`) })).toEqual(['hidden_text']);
  });

  it('javascript finds scripts, javascript: URLs and iframes; broken_html finds unclosed, stray and malformed tags', () => {
    expect(checkSpam({ ...clean, html: html('<script>alert(1)</script><iframe src="https://x.example"></iframe><a href="javascript:go()">go</a>') }).issues[0].message).toMatch(/<script>.*<iframe>.*javascript: URL/);
    const broken = checkSpam({ ...clean, html: html('<div><table><tr><td>x</td></tr></div></span><p class="a"b="c">y</p>') });
    expect(broken.issues.map((i) => i.rule)).toEqual(['broken_html']);
    expect(broken.issues[0].message).toMatch(/<table> is not closed before <\/div>/);
    expect(broken.issues[0].message).toMatch(/<\/span> closes nothing/);
    expect(broken.issues[0].message).toMatch(/missing-whitespace-between-attributes/);
    // optional end tags (p, li, td…) and void elements are fine
    expect(rulesOf({ ...clean, html: html('<ul><li>one<li>two</ul><p>para<br>line<img src="https://acme.example/a.png" alt="a">') })).toEqual([]);
  });

  it('mismatched_link_text ignores the same registrable domain and ordinary link text', () => {
    expect(rulesOf({ ...clean, html: html('<p><a href="https://www.acme.example/menu">acme.example</a> <a href="https://shop.acme.example/">https://acme.example/shop</a></p>') })).toEqual([]);
  });

  it('url_shortener finds shorteners in the text part too', () => {
    expect(rulesOf({ ...clean, text: `${clean.text}\nShort: https://tinyurl.com/abc` })).toEqual(['url_shortener']);
  });
});

describe('score and rating', () => {
  it('sums the weights of the rules broken; good below 2.5, fair below 5, poor from 5', () => {
    const report = checkSpam({ subject: 'FREE GIFT INSIDE!!! $$$', html: '<div><a href="https://bit.ly/x"><img src="https://acme.example/x.png"></a><script>x()</script>', marketing: true });
    const rules = report.issues.map((i) => i.rule);
    expect(rules).toEqual(expect.arrayContaining(['missing_text_part', 'image_only', 'subject_all_caps', 'subject_exclamations', 'subject_money', 'spam_phrases', 'broken_html', 'url_shortener', 'missing_unsubscribe', 'javascript', 'low_text_to_link_ratio']));
    expect(report.score).toBe(Math.round(report.issues.reduce((s, i) => s + i.weight, 0) * 10) / 10);
    expect(report.rating).toBe('poor');
    expect([ratingOf(0), ratingOf(2.4), ratingOf(2.5), ratingOf(4.9), ratingOf(5)]).toEqual(['good', 'good', 'fair', 'fair', 'poor']);
  });
});

describe('HTML that is hostile to a parser', () => {
  it('a body of 100,000 nested elements is checked, not a stack overflow', () => {
    const report = checkSpam({ subject: 'Deep', html: `${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`, text: 'deep', marketing: false });
    expect(report.rating).toBeDefined();
  });

  it('unterminated tags are counted once each, not scanned to the end from every one (2 MB)', () => {
    // before: every `<a` of a body without `>` was matched against the rest of the body (hours)
    const report = checkSpam({ subject: 'Open', html: '<a '.repeat(650_000), text: 'open', marketing: false });
    expect(report.issues.map((i) => i.rule)).toContain('broken_html');
  });
});
