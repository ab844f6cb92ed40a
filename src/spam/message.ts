// A message taken apart once for the spam rules: its parts, the text a reader reads, its words, its
// links (HTML anchors, or the URLs of a text-only message) and every URL in either part.
import { type HtmlFacts, type HtmlLink, readHtml } from './html.ts';

export interface SpamMessage {
  subject: string;
  html?: string;
  text?: string;
  /** marketing needs an unsubscribe link; transactional does not */
  marketing: boolean;
}

export interface SpamContext {
  subject: string;
  marketing: boolean;
  /** the HTML part read, when there is one that is not blank */
  html?: HtmlFacts;
  rawHtml: string;
  /** the text part, trimmed ('' when there is none) */
  text: string;
  /** what a reader reads: the HTML's visible text, or the text part */
  readable: string;
  /** words of `readable`, web addresses not counted */
  words: number;
  /** the links a reader sees: the HTML's anchors, or the URLs of a text-only message */
  links: HtmlLink[];
  /** every web address in either part */
  urls: string[];
}

const TEXT_URL = /\bhttps?:\/\/[^\s<>"')\]]+|\bwww\.[^\s<>"')\]]+/gi;
const urlsIn = (s: string) => [...s.matchAll(TEXT_URL)].map((m) => m[0].replace(/[.,;:!?]+$/, ''));
const wordsIn = (s: string) => s.replace(TEXT_URL, ' ').match(/\p{L}[\p{L}\p{N}'’-]*/gu)?.length ?? 0;

export function spamContextOf(message: SpamMessage): SpamContext {
  const rawHtml = message.html ?? '';
  const html = rawHtml.trim() ? readHtml(rawHtml) : undefined;
  const text = (message.text ?? '').trim();
  const readable = html ? html.visibleText : text;
  const links = html ? html.links : urlsIn(text).map((u) => ({ href: u, text: u }));
  const urls = [...(html?.links.map((l) => l.href) ?? []), ...urlsIn(text)];
  return { subject: message.subject, marketing: message.marketing, html, rawHtml, text, readable, words: wordsIn(readable), links, urls };
}
