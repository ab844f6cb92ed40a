// The deterministic fallbacks of the AI helpers (src/ai/text-fallbacks.ts, src/ai/draft.ts): each
// ai-assist action really does its job in a simple way, the ai-write draft is escaped simple HTML,
// and replies asked to be JSON or one subject per line are read leniently but checked.
import { describe, expect, it } from 'vitest';
import { draftOfProviderJson, fallbackDraft } from '../../src/ai/draft.ts';
import { jsonOfReply, plainTextOfReply, subjectsOfReply } from '../../src/ai/prompts.ts';
import { ruleBasedRecommendations } from '../../src/ai/recommendations.ts';
import { assistFallback } from '../../src/ai/assist-fallback.ts';
import {
  cutAtWord,
  fixText,
  friendlyText,
  generateFromBrief,
  lengthenText,
  professionalText,
  rewriteText,
  shortenText,
  suggestSubjects,
} from '../../src/ai/text-fallbacks.ts';

describe('rewrite', () => {
  it('normalises whitespace and puts sentences in sentence case (a shouted sentence lowercased first)', () => {
    expect(rewriteText('  hello   there.  this is\tgreat!\r\n\r\n\r\n\r\nTHIS IS A SHOUTED SENTENCE. ok? ')).toBe('Hello there. This is great!\n\nThis is a shouted sentence. Ok?');
  });

  it('leaves abbreviations, addresses and proper nouns alone', () => {
    expect(rewriteText('we sell coats, e.g. wool ones. visit www.acme.example today. Acme is open.')).toBe('We sell coats, e.g. wool ones. Visit www.acme.example today. Acme is open.');
  });
});

describe('shorten', () => {
  const text = 'Our summer sale starts on Monday. Every item in the store is twenty percent off for one week. Members get early access on Sunday evening. Shipping is free on orders over fifty euros.';

  it('keeps the first whole sentences within about 60 % of the length', () => {
    const short = shortenText(text);
    expect(short).toBe('Our summer sale starts on Monday. Every item in the store is twenty percent off for one week.');
    expect(short.length).toBeLessThanOrEqual(text.length * 0.6);
  });

  it('cuts one long sentence between words, never inside one', () => {
    const sentence = 'Supercalifragilistic expialidocious wonderful amazing words without any stops here at all';
    const short = shortenText(sentence);
    expect(short).toBe('Supercalifragilistic expialidocious wonderful…');
    const words = new Set(sentence.split(' '));
    for (const w of short.replace('…', '').split(' ')) expect(words.has(w)).toBe(true);
    expect(cutAtWord('abcdefghij', 5)).toBe('abcdefghij');
  });
});

describe('lengthen, friendly, professional', () => {
  it('lengthen adds a closing call to action line (email or message)', () => {
    expect(lengthenText('Your order has shipped')).toBe("Your order has shipped.\n\nHave a question? Just reply to this email and we'll be glad to help.");
    expect(lengthenText('Your order has shipped!', 'sms')).toBe("Your order has shipped!\n\nHave a question? Just reply to this message and we'll be glad to help.");
  });

  it('friendly adds a greeting and contractions, but not where a sentence ends', () => {
    expect(friendlyText('We are pleased to tell you that your order is ready. Do not hesitate to ask. That is how it is.')).toBe(
      "Hi there,\n\nWe're pleased to tell you that your order is ready. Don't hesitate to ask. That's how it is.",
    );
    expect(friendlyText('Dear customer, we will not forget you.')).toBe("Hi there, we won't forget you.");
    expect(friendlyText('Hello! It is ready.', 'sms')).toBe("Hello! It's ready.");
  });

  it('professional expands contractions and removes exclamation runs and emoji', () => {
    expect(professionalText("hey!!! we're SO excited 🎉🎉 you can't miss this!!! Don't wait 👍🏽")).toBe('Hello. We are SO excited you cannot miss this. Do not wait');
    expect(professionalText('Really?! It’s DONE!!!')).toBe('Really? It is DONE.');
  });
});

describe('fix', () => {
  it('corrects double spaces, repeated words, spaces before punctuation, a lone i, capitals after a full stop and common misspellings', () => {
    expect(fixText('i recieve teh the message  today . it was definately great , thanks.we  will see')).toBe('I receive the message today. It was definitely great, thanks.we will see');
    expect(fixText('Teh order is is ready.')).toBe('The order is ready.');
    expect(fixText('I knew that that was true, i.e. right.')).toBe('I knew that that was true, i.e. right.');
  });
});

describe('generate and subjects', () => {
  it('generate turns a brief into a draft: greeting, the brief as a sentence (its instruction dropped), a call to action, a sign-off', () => {
    expect(generateFromBrief('write an email to our customers about the new espresso machine, available from June 1st', { brandName: 'Acme' })).toBe(
      "Hi there,\n\nThe new espresso machine, available from June 1st.\n\nHave a question? Just reply to this email and we'll be glad to help.\n\nBest regards,\nThe Acme team",
    );
    expect(generateFromBrief('tell customers that the shop is closed on Friday', { channel: 'sms' })).toBe('Hi there! The shop is closed on Friday. Reply to this message if you have any questions.');
  });

  it('subjects: up to five, from the key phrase, each at most 60 characters', () => {
    const subjects = suggestSubjects('Our summer sale starts Monday: every summer dress and sandal is 20% off, and sandals ship free all week long.');
    expect(subjects).toEqual(['Summer sale: what you need to know', 'Summer sale is here', 'Your guide to summer sale', "Don't miss out: summer sale", 'Our summer sale starts Monday: every summer dress and…']);
    for (const s of subjects) expect(s.length).toBeLessThanOrEqual(60);
    expect(suggestSubjects('!!! ???')).toEqual(['A quick update for you']);
  });

  it('assistFallback answers each action in its shape', () => {
    expect(assistFallback({ action: 'subjects', text: 'Coffee beans from Kenya' }, null)).toMatchObject({ action: 'subjects', subjects: expect.any(Array) });
    expect(assistFallback({ action: 'generate', brief: 'our shop opens at nine' }, { name: 'Bean Co' })).toMatchObject({ action: 'generate', text: expect.stringContaining('The Bean Co team') });
    expect(assistFallback({ action: 'fix', text: 'teh end' }, null)).toEqual({ action: 'fix', text: 'The end' });
  });
});

describe('ai-write draft', () => {
  it('the fallback draft: subject, preheader, text with the unsubscribe placeholder, and escaped simple HTML', () => {
    const draft = fallbackDraft({ brief: 'Announce our <new> coats & scarves, in stores from 1 October', call_to_action: 'Visit a store', length: 'short' }, { name: 'Acme', tone: 'formal' });
    expect(draft.subject).toBe('Coats: what you need to know');
    expect(draft.preheader).toBe('Our <new> coats & scarves, in stores from 1 October');
    expect(draft.text).toBe('Hello,\n\nOur <new> coats & scarves, in stores from 1 October.\n\nVisit a store.\n\nKind regards,\nThe Acme team\n\n--\nDon\'t want these emails? Unsubscribe: {{unsubscribe_url}}');
    expect(draft.html).toContain('<p style="margin:0 0 16px">Our &lt;new&gt; coats &amp; scarves, in stores from 1 October.</p>');
    expect(draft.html).toContain('<p style="margin:0 0 16px">Kind regards,<br>The Acme team</p>');
    expect(draft.html).toContain('href="{{unsubscribe_url}}"');
    expect(draft.html).not.toContain('<new>');
  });

  it('a provider draft is checked and escaped: markup in its text is text', () => {
    const draft = draftOfProviderJson({ subject: 'Hi <b>there</b>', preheader: 'Read on', body: 'One <script>alert(1)</script>\n\nTwo & three' })!;
    expect(draft.html).toContain('<title>Hi &lt;b&gt;there&lt;/b&gt;</title>');
    expect(draft.html).toContain('One &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(draft.html).not.toContain('<script>');
    expect(draft.text.startsWith('One <script>alert(1)</script>\n\nTwo & three')).toBe(true);
    expect(draftOfProviderJson({ subject: 'No body' })).toBeUndefined();
    expect(draftOfProviderJson({ subject: '', body: 'x' })).toBeUndefined();
    expect(draftOfProviderJson(undefined)).toBeUndefined();
  });
});

describe('reading replies', () => {
  it('JSON bare, fenced, or inside prose; anything else is undefined', () => {
    expect(jsonOfReply('{"a":1}')).toEqual({ a: 1 });
    expect(jsonOfReply('Here you go:\n```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(jsonOfReply('Sure! {"a":3} Hope it helps')).toEqual({ a: 3 });
    expect(jsonOfReply('[1,2]')).toBeUndefined();
    expect(jsonOfReply('no json here')).toBeUndefined();
  });

  it('plain text without wrapping quotes or fences; subjects without numbering, at most five', () => {
    expect(plainTextOfReply('"Hello there."')).toBe('Hello there.');
    expect(plainTextOfReply('```\nHello\n```')).toBe('Hello');
    expect(subjectsOfReply('1. "One"\n2) Two\n- Three\n\n• Four\nFive\nSix')).toEqual(['One', 'Two', 'Three', 'Four', 'Five']);
  });
});

describe('coach fallback', () => {
  it('rules over the snapshot give 3 to 5 recommendations, the figures first', () => {
    const quiet = ruleBasedRecommendations({ period_days: 30, messages: { total: 0, marketing: 0, transactional: 0, by_channel: {} }, contacts: 0, suppressions: { total: 0, by_reason: {} } });
    expect(quiet.map((r) => r.title)).toEqual(['Send your first campaign', 'Grow your audience', 'Check content before you send', 'Send when people read', 'Measure one change at a time']);
    const failing = ruleBasedRecommendations({
      period_days: 30,
      messages: { total: 100, marketing: 80, transactional: 20, by_channel: { email: { scheduled: 0, queued: 0, sent: 10, delivered: 70, failed: 20, cancelled: 0 } } },
      contacts: 1000,
      suppressions: { total: 3, by_reason: { complaint: 3 } },
    });
    expect(failing.slice(0, 2).map((r) => r.title)).toEqual(['Clean up your email recipients', 'Bring spam complaints down']);
    expect(failing.length).toBeGreaterThanOrEqual(3);
    expect(failing.length).toBeLessThanOrEqual(5);
  });
});

// Each shape made a regular expression of the fallbacks backtrack over the rest of the text from
// every character (a run of blanks, of punctuation, a text of initials): 20,000 characters took
// seconds of the request loop, these took hours. Linear now, so each answers within the test's time.
describe('text that made the fallbacks quadratic', () => {
  const N = 200_000;
  const SHAPES: Record<string, string> = {
    'blanks before a word': `${' '.repeat(N)}x`,
    'tabs before a word': `${'\t'.repeat(N)}x`,
    'blanks before a comma': `${' '.repeat(N)},x`,
    'a run of exclamation marks': `${'!'.repeat(N)}a`,
    'a run of full stops': `${'.'.repeat(N)}a`,
    'question and exclamation marks': `${'?!'.repeat(N / 2)}a`,
    'initials': 'A. '.repeat(N / 3),
    'abbreviations': 'e.g. '.repeat(N / 5),
    'short sentences': 'a. '.repeat(N / 3),
  };
  for (const [shape, text] of Object.entries(SHAPES)) {
    it(`every action answers ${shape} (${text.length.toLocaleString('en')} characters)`, () => {
      for (const action of ['rewrite', 'shorten', 'lengthen', 'friendly', 'professional', 'fix', 'subjects'] as const) {
        const result = assistFallback({ action, text }, null);
        expect(result.action).toBe(action);
      }
      expect(fixText(`hello${' '.repeat(N)}world`)).toBe('Hello world');
    });
  }
});
