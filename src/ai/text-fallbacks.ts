// The deterministic fallbacks of ai-assist: what each action does, in a simple and predictable way,
// when no provider is configured or it failed. Pure functions of the text.

/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|approx|incl|no|st|[A-Z])\.$/i;
/** The same, for a text cut before its start: no `^` there. */
const ABBREVIATION_IN_TAIL = /[\s(](?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|approx|incl|no|st|[A-Z])\.$/i;
/** Longer than the longest abbreviation with the character before it. */
const ABBREVIATION_REACH = 16;

/**
 * Whether `text` up to `end` ends with an abbreviation's full stop. Only its last characters are
 * read: testing the whole text at every full stop made a text of initials ("A. B. C. …") quadratic.
 */
function endsWithAbbreviation(text: string, end = text.length): boolean {
  const from = Math.max(0, end - ABBREVIATION_REACH);
  return (from === 0 ? ABBREVIATION : ABBREVIATION_IN_TAIL).test(text.slice(from, end));
}

// A run of punctuation is matched from its first character only (the lookbehind): tried from every
// character of a long run ("!!!!…!a"), the greedy run backtracked over the rest each time (quadratic).
const SENTENCE_END = /(?<![.!?…])[.!?…]+["'”’)\]]*(?=\s|$)/g;

/** Line endings as \n, spaces and tabs inside lines as one space, lines trimmed, at most one blank line in a row. */
export function normaliseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const paragraphsOf = (text: string) => text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);

/** The sentences of a paragraph, their punctuation kept; a full stop after an abbreviation or initial does not end one. */
export function splitSentences(paragraph: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const m of paragraph.matchAll(SENTENCE_END)) {
    const end = m.index! + m[0].length;
    const piece = paragraph.slice(start, end);
    if (m[0].startsWith('.') && m[0].length === 1 && endsWithAbbreviation(piece.trimEnd())) continue;
    if (piece.trim()) sentences.push(piece.trim());
    start = end;
  }
  const rest = paragraph.slice(start).trim();
  if (rest) sentences.push(rest);
  return sentences;
}

const isShouting = (s: string) => (s.match(/\p{L}/gu)?.length ?? 0) >= 4 && !/\p{Ll}/u.test(s);

/** A sentence written in capitals, lowercased (a standalone I stays capital). */
function unshout(sentence: string): string {
  return isShouting(sentence) ? sentence.toLowerCase().replace(/(?<![\p{L}\p{N}])i(?![\p{L}\p{N}])/gu, 'I') : sentence;
}

/** A word that must keep its case at a sentence start: a URL, an address, a handle. */
const KEEP_CASE = /^[^\s]*[./@:#][^\s]*\p{L}/u;

/** The first letter of every sentence capitalised (and of every line, with `lineStarts`). */
export function capitaliseSentences(text: string, lineStarts = false): string {
  const boundary = lineStarts ? /(^|[.!?…]["'”’)\]]*[ \t]+|\n[ \t]*)(["'“‘(\[]*)(\p{Ll})/gu : /(^|[.!?…]["'”’)\]]*\s+)(["'“‘(\[]*)(\p{Ll})/gu;
  return text.replace(boundary, (match, before: string, quotes: string, letter: string, offset: number) => {
    if (before.trimStart().startsWith('.') && before.trim().length === 1 && endsWithAbbreviation(text, offset + before.trimEnd().length)) return match;
    const word = /^\S*/.exec(text.slice(offset + before.length + quotes.length))![0];
    if (KEEP_CASE.test(word)) return match;
    return `${before}${quotes}${letter.toUpperCase()}`;
  });
}

/** rewrite: whitespace normalised, sentences in sentence case (a shouted one lowercased first). */
export function rewriteText(text: string): string {
  const paragraphs = paragraphsOf(normaliseWhitespace(text)).map((p) =>
    p
      .split('\n')
      .map((line) => splitSentences(line).map(unshout).join(' '))
      .join('\n'),
  );
  return capitaliseSentences(paragraphs.join('\n\n'), true);
}

/** The longest start of `s` that ends at a word boundary and is at most `max` characters, with an ellipsis when cut. */
export function cutAtWord(s: string, max: number, ellipsis = '…'): string {
  if (s.length <= max) return s;
  const room = max - ellipsis.length;
  const cut = s.slice(0, room + 1);
  const at = cut.search(/\s\S*$/);
  if (at <= 0) return s.split(/\s/)[0];
  return `${cut.slice(0, at).replace(/[\s,;:–—-]+$/, '')}${ellipsis}`;
}

/** shorten: the first sentences up to about 60 % of the length, never cut mid-word. */
export function shortenText(text: string, ratio = 0.6): string {
  const clean = normaliseWhitespace(text);
  const target = Math.floor(clean.length * ratio);
  const kept: string[][] = [];
  let length = 0;
  outer: for (const paragraph of paragraphsOf(clean)) {
    const sentences: string[] = [];
    for (const sentence of splitSentences(paragraph)) {
      const added = sentence.length + (sentences.length ? 1 : kept.length ? 2 : 0);
      if (length + added > target) {
        if (sentences.length) kept.push(sentences);
        break outer;
      }
      sentences.push(sentence);
      length += added;
    }
    kept.push(sentences);
  }
  const result = kept.filter((s) => s.length).map((s) => s.join(' ')).join('\n\n');
  // the first sentence alone is longer than the target: its start, cut between words
  return result || cutAtWord(clean, Math.max(target, 1));
}

const endsSentence = (s: string) => /[.!?…]["'”’)\]]*$/.test(s);

/** lengthen: the text with a closing call to action line. */
export function lengthenText(text: string, channel?: string): string {
  const clean = normaliseWhitespace(text);
  const body = endsSentence(clean) ? clean : `${clean}.`;
  const where = !channel || channel === 'email' ? 'email' : 'message';
  return `${body}\n\nHave a question? Just reply to this ${where} and we'll be glad to help.`;
}

/** [long form, contraction]: expanded by professional; those a sentence can end on are only contracted before a word. */
const CONTRACTIONS: [string, string][] = [
  ['do not', "don't"],
  ['does not', "doesn't"],
  ['did not', "didn't"],
  ['cannot', "can't"],
  ['will not', "won't"],
  ['is not', "isn't"],
  ['are not', "aren't"],
  ['was not', "wasn't"],
  ['were not', "weren't"],
  ['have not', "haven't"],
  ['has not', "hasn't"],
  ['would not', "wouldn't"],
  ['should not', "shouldn't"],
  ['could not', "couldn't"],
  ['I am', "I'm"],
  ['you are', "you're"],
  ['we are', "we're"],
  ['they are', "they're"],
  ['it is', "it's"],
  ['that is', "that's"],
  ['there is', "there's"],
  ['let us', "let's"],
  ['I will', "I'll"],
  ['you will', "you'll"],
  ['we will', "we'll"],
  ['they will', "they'll"],
  ['I have', "I've"],
  ['we have', "we've"],
  ['you have', "you've"],
];

/** Only contracted when a word follows ("as it is." stays; "we have a plan" stays: "have" as possession). */
const CONTRACT_NEEDS_FOLLOWING_WORD = /(?:is|are|am|will|us)$/;
const NOT_CONTRACTED_BY_FRIENDLY = new Set(['I have', 'we have', 'you have']);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The replacement in the case of what it replaces: CAPITALS, Capitalised, or as written. */
function inCaseOf(found: string, replacement: string): string {
  if (found.length > 1 && found === found.toUpperCase() && found !== found.toLowerCase()) return replacement.toUpperCase();
  if (/^\p{Lu}/u.test(found)) return replacement[0].toUpperCase() + replacement.slice(1);
  return replacement;
}

const wordPattern = (phrase: string, flags = 'giu') => new RegExp(`(?<![\\p{L}\\p{N}'’])${phrase.split(' ').map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}'’])`, flags);

function contract(text: string): string {
  let out = text;
  for (const [long, short] of CONTRACTIONS) {
    if (NOT_CONTRACTED_BY_FRIENDLY.has(long)) continue;
    const follow = CONTRACT_NEEDS_FOLLOWING_WORD.test(long) ? '(?=\\s+[\\p{L}\\p{N}])' : '';
    const re = new RegExp(`${wordPattern(long).source}${follow}`, 'giu');
    out = out.replace(re, (found) => inCaseOf(found, short));
  }
  return out;
}

function expand(text: string): string {
  let out = text;
  for (const [long, short] of CONTRACTIONS) {
    // either apostrophe, straight or curly
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}'’])${escapeRegExp(short).replace("'", "['’]")}(?![\\p{L}\\p{N}'’])`, 'giu');
    out = out.replace(pattern, (found) => inCaseOf(found, long));
  }
  // any other n't: "mustn't" → "must not"
  return out.replace(/(?<![\p{L}\p{N}])(\p{L}+)n['’]t(?![\p{L}\p{N}])/gu, (_, stem: string) => `${stem} not`);
}

const GREETING = /^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|howdy)\b/i;

/** friendly: a greeting first, and contractions. */
export function friendlyText(text: string, channel?: string): string {
  let out = contract(normaliseWhitespace(text));
  out = out.replace(/^dear [^,\n]{1,60},/i, 'Hi there,');
  if (GREETING.test(out)) return out;
  return !channel || channel === 'email' ? `Hi there,\n\n${out}` : `Hi there! ${out}`;
}

/** Emoji (pictographs with their modifiers, joiners and variation selectors) and regional-indicator flags. */
const EMOJI = /(?:\p{Extended_Pictographic}|\p{Regional_Indicator})(?:[\u{1F3FB}-\u{1F3FF}\uFE0F\u20E3]|\u200D(?:\p{Extended_Pictographic}|\p{Regional_Indicator}))*/gu;

/** professional: contractions expanded, exclamation runs and emoji removed, casual greetings made formal. */
export function professionalText(text: string): string {
  let out = expand(normaliseWhitespace(text).replace(EMOJI, ''));
  out = out
    .replace(/\?+!+[!?]*/g, '?')
    .replace(/!+/g, '.')
    .replace(/\.{2,}(?!\.)/g, (dots) => (dots.length === 3 ? dots : '.'))
    .replace(/^(?:hey|hiya|hi there|hi)\b[ \t]*(?=\S)/i, 'Hello');
  out = out
    .split('\n')
    .map((line) => splitSentences(line).map(unshout).join(' '))
    .join('\n');
  return capitaliseSentences(normaliseWhitespace(out.replace(/(?<![ \t])[ \t]+([,.;:?])/g, '$1')));
}

/** Common misspellings and their correction. */
export const MISSPELLINGS: Record<string, string> = {
  teh: 'the',
  recieve: 'receive',
  recieved: 'received',
  seperate: 'separate',
  definately: 'definitely',
  occured: 'occurred',
  accomodate: 'accommodate',
  untill: 'until',
  wich: 'which',
  thier: 'their',
  adress: 'address',
  tommorow: 'tomorrow',
  tomorow: 'tomorrow',
  begining: 'beginning',
  beleive: 'believe',
  calender: 'calendar',
  enviroment: 'environment',
  goverment: 'government',
  occassion: 'occasion',
  publically: 'publicly',
  succesful: 'successful',
  neccessary: 'necessary',
  necessery: 'necessary',
  wierd: 'weird',
  truely: 'truly',
  alot: 'a lot',
  existance: 'existence',
  independant: 'independent',
  reccomend: 'recommend',
  recomend: 'recommend',
  acheive: 'achieve',
  garantee: 'guarantee',
  buisness: 'business',
  freind: 'friend',
  arguement: 'argument',
  comming: 'coming',
  exellent: 'excellent',
  greatful: 'grateful',
  oppurtunity: 'opportunity',
  sucess: 'success',
};

/** Repeats that are often right ("that that", "had had"). */
const REPEAT_ALLOWED = new Set(['that', 'had']);

/** fix: misspellings, repeated words, double spaces, spaces before punctuation, a lone i, capitals after a full stop. */
export function fixText(text: string): string {
  let out = text.replace(/\r\n?/g, '\n');
  out = out.replace(/(?<![\p{L}\p{N}'’])\p{L}+(?![\p{L}\p{N}'’])/gu, (word) => {
    const right = MISSPELLINGS[word.toLowerCase()];
    return right ? inCaseOf(word, right) : word;
  });
  out = out.replace(/(?<![\p{L}\p{N}])(\p{L}+)(\s+)\1(?![\p{L}\p{N}])/giu, (found, word: string) => (REPEAT_ALLOWED.has(word.toLowerCase()) ? found : word));
  out = out.replace(/(\S)[ \t]{2,}(?=\S)/g, '$1 ');
  // (?<![ \t]): a run of blanks is tried from its start only, as SENTENCE_END's run is
  out = out.replace(/(?<![ \t])[ \t]+([,.;:!?])(?=\s|$)/g, '$1');
  out = out.replace(/(?<![\p{L}\p{N}'’.])i(?=['’](?:m|ll|ve|d)\b|[ \t\n,!?;:]|\.(?![\p{L}\p{N}])|$)/gu, 'I');
  return capitaliseSentences(out.trim());
}

const STOPWORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its just let like me more most my no nor not now of off on once only or other our ours out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours get got make our us new one two also please today will just really`.split(/\s+/),
);

/**
 * The key phrase of a text: the run of one or two consecutive key words (no stop word between)
 * whose words are most frequent in the text; on a tie, the earliest.
 */
export function keyPhraseOf(text: string): string | undefined {
  const counts = new Map<string, number>();
  const tokens = [...text.matchAll(/\p{L}[\p{L}\p{N}'’-]*|[^\s\p{L}]+/gu)].map((m) => m[0]);
  const isKey = (t: string) => /^\p{L}/u.test(t) && t.length >= 3 && !STOPWORDS.has(t.toLowerCase());
  for (const t of tokens) if (isKey(t)) counts.set(t.toLowerCase(), (counts.get(t.toLowerCase()) ?? 0) + 1);
  let best: { words: string[]; score: number } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    if (!isKey(tokens[i])) continue;
    const words: string[] = [];
    for (let j = i; j < tokens.length && words.length < 2 && isKey(tokens[j]); j++) words.push(tokens[j]);
    const score = words.reduce((sum, w) => sum + counts.get(w.toLowerCase())!, 0);
    if (!best || score > best.score) best = { words, score };
  }
  return best?.words.map((w) => (isShouting(w) ? w.toLowerCase() : w)).join(' ');
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const SUBJECT_MAX = 60;

/** subjects: up to five subject lines built from the text's key phrase, each at most 60 characters. */
export function suggestSubjects(text: string): string[] {
  const phrase = keyPhraseOf(text);
  const firstSentence = splitSentences(paragraphsOf(normaliseWhitespace(text))[0] ?? '')[0]?.replace(/(?<![.!?…])[.!?…]+$/, '');
  const candidates = [
    phrase && `${capitalised(phrase)}: what you need to know`,
    phrase && `${capitalised(phrase)} is here`,
    phrase && `Your guide to ${phrase}`,
    phrase && `Don't miss out: ${phrase}`,
    firstSentence && firstSentence.split(/\s+/).length >= 3 && capitalised(unshout(firstSentence)),
  ].filter((s): s is string => typeof s === 'string' && s.length > 0);
  const subjects: string[] = [];
  for (const c of candidates) {
    const fitted = cutAtWord(c, SUBJECT_MAX);
    if (!subjects.some((s) => s.toLowerCase() === fitted.toLowerCase())) subjects.push(fitted);
  }
  return subjects.length ? subjects.slice(0, 5) : ['A quick update for you'];
}

const PEOPLE = '(?:our |the |my )?(?:customers|users|subscribers|members|clients|people|readers|everyone|audience)';
/** How a brief asks for a message ("write an email about", "tell customers that"), which a draft must not repeat. */
const BRIEF_INSTRUCTION = new RegExp(
  `^(?:please\\s+)?(?:(?:write|draft|create|compose|send)\\s+(?:an?\\s+|the\\s+)?(?:short\\s+|quick\\s+)?(?:email|e-mail|message|sms|text|newsletter|note|post|announcement)?\\s*(?:to\\s+${PEOPLE}\\s*)?(?:about|on|for|announcing|telling\\s+${PEOPLE}(?:\\s+about|\\s+that)?|that)?|announce|promote|(?:tell|remind|inform|let)\\s+${PEOPLE}(?:\\s+know)?(?:\\s+(?:about|that|of))?)\\s+`,
  'i',
);

/** The brief without the instruction it starts with, as text a reader may see. */
export function briefAsText(brief: string): string {
  const stripped = normaliseWhitespace(brief).replace(BRIEF_INSTRUCTION, '');
  return rewriteText(stripped || brief);
}

/** generate: a structured draft (greeting, the brief as the body, a call to action, a sign-off) from the brief. */
export function generateFromBrief(brief: string, options: { brandName?: string; channel?: string } = {}): string {
  const body = briefAsText(brief);
  const bodyEnded = endsSentence(body) ? body : `${body}.`;
  const signOff = options.brandName ? `The ${options.brandName} team` : 'The team';
  if (options.channel && options.channel !== 'email') return `Hi there! ${bodyEnded} Reply to this message if you have any questions.`;
  return ['Hi there,', bodyEnded, "Have a question? Just reply to this email and we'll be glad to help.", `Best regards,\n${signOff}`].join('\n\n');
}
