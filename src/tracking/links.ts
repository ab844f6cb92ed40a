// Click tracking for HTML email: rewrites the links of a message to tracked URLs without
// re-serialising the document (mail clients are picky about every byte), and signs click tokens
// so the redirect endpoint learns the message and the destination without a lookup.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse, parseFragment, html as htmlSpec, type DefaultTreeAdapterMap } from 'parse5';
import type pg from 'pg';
import { storedSecret } from '../service-secrets.ts';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const LINK_ELEMENTS = new Set(['a', 'area']);
/** Merge tags of template engines (Handlebars, Liquid, Mustache), also once URL-encoded: the URL is only known at send time. */
const PLACEHOLDER = /\{\{|\}\}|%7B%7B|%7D%7D/i;
/** What browsers strip from both ends of an href before reading it as a URL. */
const ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/** Is this the kind of link we track: an absolute http(s) URL that is not a placeholder? */
function trackableUrl(value: string): string | null {
  const url = value.replace(ASCII_WHITESPACE, '');
  if (!/^https?:\/\//i.test(url) || PLACEHOLDER.test(url)) return null;
  try {
    new URL(url);
  } catch {
    return null;
  }
  return url;
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function* elements(node: Node): Generator<Element> {
  if ('tagName' in node) yield node;
  if ('childNodes' in node) for (const child of node.childNodes) yield* elements(child);
  // <template> keeps its children in a fragment of its own
  if ('content' in node && node.content) yield* elements(node.content);
}

/** Rewrites the href of every <a> and <area> whose URL is absolute http(s) to track(url, index); keeps every other byte of the document. */
export function rewriteLinks(html: string, track: (url: string, index: number) => string): { html: string; links: string[] } {
  // a fragment parsed as a document would be the same bytes, but parseFragment keeps the tree as
  // the author wrote it (no implied <head> swallowing leading content)
  const root = /<html[\s>]|<!doctype/i.test(html) ? parse(html, { sourceCodeLocationInfo: true }) : parseFragment(html, { sourceCodeLocationInfo: true });
  const links: string[] = [];
  const indexOf = new Map<string, number>();
  // keyed by start offset: the parser re-creates misnested <a> elements (the adoption agency
  // algorithm) with the source location of the original, and one attribute is spliced once
  const splices = new Map<number, { end: number; text: string }>();
  for (const el of elements(root)) {
    if (el.namespaceURI !== htmlSpec.NS.HTML || !LINK_ELEMENTS.has(el.tagName)) continue;
    const href = el.attrs.find((a) => a.name === 'href' && !a.prefix);
    const location = el.sourceCodeLocation?.attrs?.href;
    if (!href || !location || splices.has(location.startOffset)) continue;
    const optOut = el.attrs.find((a) => a.name === 'data-engage-track');
    if (optOut && optOut.value.trim().toLowerCase() === 'off') continue;
    const url = trackableUrl(href.value);
    if (url === null) continue;
    let index = indexOf.get(url);
    if (index === undefined) {
      index = links.length;
      links.push(url);
      indexOf.set(url, index);
    }
    splices.set(location.startOffset, { end: location.endOffset, text: `href="${escapeAttribute(track(url, index))}"` });
  }
  // from the end backwards, so the offsets of the splices still to do stay valid
  let out = html;
  for (const [start, { end, text }] of [...splices].sort(([a], [b]) => b - a)) {
    out = out.slice(0, start) + text + out.slice(end);
  }
  return { html: out, links };
}

/** The key click (and open) tokens are signed with: a service secret, made once and shared by every process. */
export async function clickTrackingKey(db: pg.Pool): Promise<Buffer> {
  return Buffer.from(await storedSecret(db, 'click_tracking'), 'base64url');
}

/** HMAC-SHA256 truncated to 128 bits: forging still takes 2^128 tries, and the link stays short. */
const MAC_BYTES = 16;

const clickMac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload, 'utf8').digest().subarray(0, MAC_BYTES);

/** A click token: names the message and the link's URL, signed so the redirect needs no lookup. */
export function signClickToken(key: Buffer, messageId: string, url: string): string {
  const payload = Buffer.from(JSON.stringify({ m: messageId, u: url }), 'utf8').toString('base64url');
  return `${payload}.${clickMac(key, payload).toString('base64url')}`;
}

/** The message and URL a genuine token names; null when malformed or the signature does not match. */
export function readClickToken(key: Buffer, token: string): { messageId: string; url: string } | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload, signature] = parts;
  const given = Buffer.from(signature, 'base64url');
  // timingSafeEqual needs equal lengths; a signature spelled otherwise than we write it (base64url's
  // unused trailing bits, stray characters the decoder skips) is an altered token
  if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return null;
  // constant time: how much of the signature was right must not show in how long the answer takes
  if (!timingSafeEqual(given, clickMac(key, payload))) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof claims !== 'object' || claims === null) return null;
  const { m, u } = claims as { m?: unknown; u?: unknown };
  if (typeof m !== 'string' || typeof u !== 'string') return null;
  return { messageId: m, url: u };
}
