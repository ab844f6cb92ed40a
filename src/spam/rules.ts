// The spam check's rules (README "Spam check"): one list, each rule an id, a weight (higher is
// worse) and a check that names what it found, or nothing. Rules read a message already taken
// apart once (src/spam/message.ts), never the raw strings twice.
import { getDomain } from 'tldts';
import type { SpamContext } from './message.ts';

export interface SpamRule {
  id: string;
  weight: number;
  /** what the rule looks for, for the README's table */
  description: string;
  /** the issue's message when the message breaks the rule, else undefined */
  check(ctx: SpamContext): string | undefined;
}

/** Phrases mailbox filters associate with spam: matched as whole words, case-insensitively, in the subject and body. */
export const SPAM_PHRASES = [
  '100% free', '100% satisfied', 'act now', 'additional income', 'all natural', 'amazing deal', 'apply now', 'as seen on',
  'be your own boss', 'best price', 'big bucks', 'buy direct', 'call now', 'cash bonus', 'cheap meds', 'click below', 'click here',
  'congratulations you', 'credit card offer', 'dear friend', 'double your', 'earn extra cash', 'earn money', 'eliminate debt',
  'extra income', 'fast cash', 'financial freedom', 'free access', 'free gift', 'free money', 'free trial', 'get paid',
  'guaranteed income', 'increase your sales', 'instant access', 'limited time only', 'lose weight', 'lowest price', 'make money fast',
  'million dollars', 'miracle', 'money back guarantee', 'no catch', 'no credit check', 'no hidden fees', 'no obligation',
  'not spam', 'once in a lifetime', 'order now', 'risk-free', 'risk free', 'satisfaction guaranteed', 'this is not spam',
  'urgent response', 'viagra', 'while supplies last', 'winner', 'work from home', 'you have been selected', "you're a winner",
];

/** Link shortening services: they hide where a link goes, and spammers share their domains. */
export const URL_SHORTENERS = [
  'bit.ly', 'bitly.com', 'tinyurl.com', 'goo.gl', 't.co', 'ow.ly', 'is.gd', 'buff.ly', 'rebrand.ly', 'cutt.ly', 'shorturl.at',
  'tiny.cc', 'rb.gy', 'bl.ink', 't.ly', 's.id', 'v.gd', 'lnkd.in', 'soo.gd', 'clck.ru', 'shorte.st', 'adf.ly', 'qr.ae', 'tr.im',
];

const SUBJECT_MAX = 100;
const HIDDEN_TEXT_ALLOWANCE = 150; // a preheader is hidden on purpose and rarely longer
const WORDS_PER_LINK = 15;
const WORDS_PER_IMAGE = 30;
const IMAGE_ONLY_WORDS = 10;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PHRASE_PATTERNS = SPAM_PHRASES.map((p) => ({ phrase: p, re: new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(p).replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}])`, 'iu') }));

const hostOf = (url: string): string | undefined => {
  try {
    const u = new URL(/^www\./i.test(url) ? `http://${url}` : url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
};

const isShortener = (host: string) => URL_SHORTENERS.some((s) => host === s || host.endsWith(`.${s}`));

/** A link text that reads as a web address: `example.com`, `www.example.com/offer`, `https://example.com`. */
const ADDRESS_TEXT = /^(?:https?:\/\/)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?::\d+)?(?:[/?#]\S*)?$/i;
const UNSUBSCRIBE_WORDS = /unsubscribe|opt[\s-]?out|unsub\b|manage (?:your )?(?:preferences|subscription)/i;
const UNSUBSCRIBE_PLACEHOLDER = /\{\{\s*unsubscribe_url\s*\}\}/;

const letters = (s: string) => s.match(/\p{L}/gu) ?? [];

export const SPAM_RULES: readonly SpamRule[] = [
  {
    id: 'missing_text_part',
    weight: 1.5,
    description: 'an HTML body without a plain-text alternative',
    check: (c) => (c.html && !c.text ? 'the HTML body has no plain-text part: add `text` (many filters and some readers need it)' : undefined),
  },
  {
    id: 'image_only',
    weight: 3,
    description: `HTML that is images with fewer than ${IMAGE_ONLY_WORDS} words of text`,
    check: (c) => (c.html && c.html.images > 0 && c.words < IMAGE_ONLY_WORDS ? `the HTML is ${c.html.images} image(s) and only ${c.words} word(s) of text: filters cannot read images` : undefined),
  },
  {
    id: 'image_heavy',
    weight: 1.5,
    description: `HTML with fewer than ${WORDS_PER_IMAGE} words of text per image`,
    check: (c) =>
      c.html && c.html.images > 0 && c.words >= IMAGE_ONLY_WORDS && c.words < WORDS_PER_IMAGE * c.html.images
        ? `${c.html.images} image(s) for ${c.words} words of text: aim for at least ${WORDS_PER_IMAGE} words per image`
        : undefined,
  },
  {
    id: 'subject_missing',
    weight: 2,
    description: 'an empty subject',
    check: (c) => (c.subject.trim() === '' ? 'the subject is empty' : undefined),
  },
  {
    id: 'subject_too_long',
    weight: 0.5,
    description: `a subject over ${SUBJECT_MAX} characters`,
    check: (c) => (c.subject.length > SUBJECT_MAX ? `the subject is ${c.subject.length} characters: over ${SUBJECT_MAX} it is cut off and reads as stuffed` : undefined),
  },
  {
    id: 'subject_all_caps',
    weight: 2,
    description: 'a subject in capitals (at least 5 letters, 80 % or more upper case)',
    check: (c) => {
      const all = letters(c.subject);
      const upper = all.filter((l) => l !== l.toLowerCase() && l === l.toUpperCase()).length;
      return all.length >= 5 && upper / all.length >= 0.8 ? 'the subject is in capitals: it reads as shouting' : undefined;
    },
  },
  {
    id: 'subject_exclamations',
    weight: 1.5,
    description: 'a subject with `!!` or three or more exclamation marks',
    check: (c) => (/!{2,}/.test(c.subject) || (c.subject.match(/!/g)?.length ?? 0) >= 3 ? 'the subject has a run of exclamation marks' : undefined),
  },
  {
    id: 'subject_money',
    weight: 1.5,
    description: 'a subject with runs of currency signs (`$$`, `€€`, `£££`)',
    check: (c) => (/[$€£¥]\s*[$€£¥]/.test(c.subject) ? 'the subject has a run of currency signs' : undefined),
  },
  {
    id: 'spam_phrases',
    weight: 2,
    description: 'phrases from the spam phrase list in the subject or body',
    check: (c) => {
      const haystack = `${c.subject}\n${c.readable}\n${c.text}`;
      const found = PHRASE_PATTERNS.filter((p) => p.re.test(haystack)).map((p) => p.phrase);
      return found.length ? `phrases filters associate with spam: ${found.slice(0, 5).map((p) => `"${p}"`).join(', ')}` : undefined;
    },
  },
  {
    id: 'low_text_to_link_ratio',
    weight: 1.5,
    description: `fewer than ${WORDS_PER_LINK} words of text per link`,
    check: (c) => {
      const links = c.links.filter((l) => hostOf(l.href)).length;
      return links > 0 && c.words < WORDS_PER_LINK * links ? `${links} link(s) for ${c.words} words of text: aim for at least ${WORDS_PER_LINK} words per link` : undefined;
    },
  },
  {
    id: 'broken_html',
    weight: 1,
    description: 'unbalanced or malformed HTML: unclosed, stray or misnested tags, broken attributes',
    check: (c) => (c.html?.markupProblems.length ? `the HTML is broken: ${c.html.markupProblems.slice(0, 5).join('; ')}` : undefined),
  },
  {
    id: 'url_shortener',
    weight: 2,
    description: `links through URL shorteners (${URL_SHORTENERS.slice(0, 4).join(', ')}, …)`,
    check: (c) => {
      const hosts = [...new Set(c.urls.map(hostOf).filter((h): h is string => !!h && isShortener(h)))];
      return hosts.length ? `links through URL shorteners hide their destination: ${hosts.join(', ')}` : undefined;
    },
  },
  {
    id: 'missing_unsubscribe',
    weight: 2,
    description: 'marketing without an unsubscribe link or the `{{unsubscribe_url}}` placeholder',
    check: (c) => {
      if (!c.marketing) return undefined;
      const raw = `${c.rawHtml}\n${c.text}`;
      const linked = c.links.some((l) => UNSUBSCRIBE_WORDS.test(l.href) || UNSUBSCRIBE_WORDS.test(l.text));
      const textual = UNSUBSCRIBE_WORDS.test(c.text) && c.urls.length > 0;
      return UNSUBSCRIBE_PLACEHOLDER.test(raw) || linked || textual ? undefined : 'marketing without an unsubscribe link: add one, or {{unsubscribe_url}} where it should go';
    },
  },
  {
    id: 'hidden_text',
    weight: 1.5,
    description: `more than ${HIDDEN_TEXT_ALLOWANCE} characters of hidden text (display:none, visibility:hidden, font sizes of 2 px or less)`,
    check: (c) => (c.html && c.html.hiddenText.length > HIDDEN_TEXT_ALLOWANCE ? `${c.html.hiddenText.length} characters of text are hidden from the reader` : undefined),
  },
  {
    id: 'javascript',
    weight: 3,
    description: 'scripts in the HTML: `<script>`, `<iframe>`, `<object>`, `<embed>`, on… attributes, javascript: URLs',
    check: (c) => (c.html?.scripts.length ? `active content that mail clients strip and filters distrust: ${c.html.scripts.join(', ')}` : undefined),
  },
  {
    id: 'forms',
    weight: 2,
    description: 'forms in the HTML: `<form>`, `<input>`, `<select>`, `<textarea>`',
    check: (c) => (c.html?.forms.length ? `form elements, which most mail clients disable: ${c.html.forms.join(', ')}` : undefined),
  },
  {
    id: 'mismatched_link_text',
    weight: 3,
    description: 'a link whose text is a web address on another domain than its href',
    check: (c) => {
      const mismatches: string[] = [];
      for (const link of c.html?.links ?? []) {
        const shown = ADDRESS_TEXT.exec(link.text)?.[1];
        const target = hostOf(link.href);
        if (!shown || !target) continue;
        const shownDomain = getDomain(shown);
        const targetDomain = getDomain(target);
        if (shownDomain && targetDomain && shownDomain !== targetDomain) mismatches.push(`"${link.text}" goes to ${target}`);
      }
      return mismatches.length ? `link text shows one address and goes to another (a phishing sign): ${mismatches.slice(0, 3).join('; ')}` : undefined;
    },
  },
];
