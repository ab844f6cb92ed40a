// BIMI logos: what can be checked of SVG Tiny Portable/Secure (draft-svg-tiny-ps-abrotman) from the
// file alone, fetching the logo from its published https URL (public addresses only, no redirects,
// bounded in time and size), and the default._bimi TXT record that publishes it.
import { rootCertificates } from 'node:tls';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Agent, request, type Dispatcher } from 'undici';
import { checkWebhookUrl, guardedLookup } from '../webhooks/ssrf.ts';

export interface BimiIssue {
  code: string;
  message: string;
}

/** The BIMI group's recommended ceiling for a logo file. */
export const BIMI_MAX_SVG_BYTES = 32 * 1024;

export interface FetchBimiLogoOptions {
  /** Allow loopback and private addresses (local development and tests); platform addresses stay refused. */
  allowPrivate?: boolean;
  timeoutMs?: number;
  /** Read at most this many bytes; one more than BIMI_MAX_SVG_BYTES by default, so an oversized logo shows. */
  maxBytes?: number;
  /** An extra trusted CA certificate (PEM), on top of the usual roots. */
  ca?: string;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const ANIMATION_ELEMENTS = new Set(['animate', 'animateMotion', 'animateColor', 'animateTransform', 'set']);
/** Elements that run code, embed other content or fetch something: none is allowed in tiny-ps. */
const FORBIDDEN_ELEMENTS = new Map<string, { code: string; why: string }>([
  ['script', { code: 'script', why: 'scripts are not allowed' }],
  ['foreignObject', { code: 'foreign_object', why: 'foreign content is not allowed' }],
  ['image', { code: 'image', why: 'raster and external images are not allowed; draw the logo in vector shapes' }],
]);

/** One element as fast-xml-parser's preserveOrder mode gives it: `{ [name]: children, ':@': attributes }`. */
type OrderedNode = Record<string, unknown>;
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: OrderedNode[];
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // entities are refused before parsing; none is expanded (billion laughs, external entities)
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignorePiTags: false,
  trimValues: true,
});

const localName = (qualified: string) => qualified.slice(qualified.indexOf(':') + 1);

function asElement(node: OrderedNode): XmlElement | null {
  const name = Object.keys(node).find((k) => k !== ':@');
  if (name === undefined || name.startsWith('#') || name.startsWith('?')) return null;
  return {
    name,
    attributes: (node[':@'] as Record<string, string> | undefined) ?? {},
    children: (node[name] as OrderedNode[] | undefined) ?? [],
  };
}

function* descendants(element: XmlElement): Generator<XmlElement> {
  for (const child of element.children) {
    const el = asElement(child);
    if (el) {
      yield el;
      yield* descendants(el);
    }
  }
}

function textOf(element: XmlElement): string {
  return element.children
    .map((c) => {
      if (typeof c['#text'] === 'string') return c['#text'];
      const child = asElement(c);
      return child ? textOf(child) : '';
    })
    .join('')
    .trim();
}

/** The namespace a prefixed or unprefixed name of the root resolves to (declared on the root itself). */
function rootNamespace(root: XmlElement): string | undefined {
  const colon = root.name.indexOf(':');
  return root.attributes[colon < 0 ? 'xmlns' : `xmlns:${root.name.slice(0, colon)}`];
}

/** `url(...)` references in CSS (style attributes, <style>, presentation attributes) that leave the document. */
function externalCssReferences(css: string): string[] {
  const found: string[] = [];
  for (const m of css.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/gi)) if (!m[2].startsWith('#')) found.push(m[2]);
  for (const m of css.matchAll(/@import\s+(?:url\(\s*)?['"]?([^'")\s;]+)/gi)) found.push(m[1]);
  return found;
}

/** A length attribute as number and unit ('' and 'px' are the same user unit), or null when it is not one. */
function parseLength(value: string | undefined): { n: number; unit: string } | null {
  const m = value?.trim().match(/^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-z%]*)$/i);
  if (!m) return null;
  const unit = m[2].toLowerCase();
  return { n: Number(m[1]), unit: unit === 'px' ? '' : unit };
}

function squareIssue(root: XmlElement): BimiIssue | null {
  const viewBox = root.attributes.viewBox;
  if (viewBox !== undefined) {
    const numbers = viewBox.trim().split(/[\s,]+/).map(Number);
    if (numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n)) || numbers[2] <= 0 || numbers[3] <= 0) {
      return { code: 'not_square', message: `viewBox "${viewBox}" is not four numbers with a positive width and height, so the logo cannot be shown square` };
    }
    const [, , w, h] = numbers;
    return w === h ? null : { code: 'not_square', message: `the logo is not square: its viewBox is ${w} wide and ${h} high; BIMI shows logos in a square (or circle)` };
  }
  const { width, height } = root.attributes;
  if (width === undefined || height === undefined) {
    return { code: 'not_square', message: 'the root has no viewBox and no width and height, so the logo cannot be shown to be square; add a square viewBox' };
  }
  const w = parseLength(width);
  const h = parseLength(height);
  if (w && h && w.n === h.n && w.unit === h.unit) return null;
  return { code: 'not_square', message: `the logo is not square: width "${width}" and height "${height}" differ; BIMI shows logos in a square (or circle)` };
}

/** Checks an SVG logo against SVG Tiny PS as far as the file shows; [] = acceptable. Reports every failed check. */
export function checkBimiSvg(svg: string): BimiIssue[] {
  const issues: BimiIssue[] = [];
  const seen = new Set<string>();
  const add = (code: string, message: string) => {
    if (seen.has(`${code}\0${message}`)) return;
    seen.add(`${code}\0${message}`);
    issues.push({ code, message });
  };

  const bytes = Buffer.byteLength(svg, 'utf8');
  if (bytes > BIMI_MAX_SVG_BYTES) add('too_large', `the logo is ${bytes} bytes; BIMI recommends at most ${BIMI_MAX_SVG_BYTES} (32 KiB)`);

  // refused before parsing: entity expansion (billion laughs) and external entities live here
  if (/<!DOCTYPE|<!ENTITY/i.test(svg)) {
    add('doctype', 'DOCTYPE and ENTITY declarations are not allowed in an SVG Tiny PS logo');
    return issues;
  }
  const valid = XMLValidator.validate(svg);
  if (valid !== true) {
    add('invalid_xml', `the logo is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
    return issues;
  }

  const topLevel = parser.parse(svg) as OrderedNode[];
  for (const node of topLevel) {
    // <?xml-stylesheet href=…?> pulls in a style sheet from elsewhere
    if ('?xml-stylesheet' in node) add('external_reference', 'an xml-stylesheet processing instruction refers to an external style sheet');
  }
  const roots = topLevel.map(asElement).filter((e): e is XmlElement => e !== null);
  if (roots.length !== 1) {
    add('invalid_xml', roots.length === 0 ? 'the file has no root element' : 'the file has more than one root element');
    return issues;
  }
  const [root] = roots;

  if (localName(root.name) !== 'svg' || rootNamespace(root) !== SVG_NS) {
    add('root_element', `the root element must be <svg> in the SVG namespace (${SVG_NS}); found <${root.name}>${rootNamespace(root) ? ` in ${rootNamespace(root)}` : ' without a namespace'}`);
  }
  if (root.attributes.version !== '1.2') add('version', `the root must have version="1.2"; found ${root.attributes.version === undefined ? 'none' : `"${root.attributes.version}"`}`);
  if (root.attributes.baseProfile !== 'tiny-ps') {
    add('base_profile', `the root must have baseProfile="tiny-ps"; found ${root.attributes.baseProfile === undefined ? 'none' : `"${root.attributes.baseProfile}"`}`);
  }
  const title = root.children.map(asElement).find((e) => e !== null && localName(e.name) === 'title');
  if (!title || textOf(title) === '') add('missing_title', 'the root must have a non-empty <title> child naming the brand');
  for (const attr of ['x', 'y']) {
    if (attr in root.attributes) add('root_position', `the root must not have an ${attr} attribute`);
  }
  const square = squareIssue(root);
  if (square) add(square.code, square.message);

  for (const el of [root, ...descendants(root)]) {
    const name = localName(el.name);
    const forbidden = FORBIDDEN_ELEMENTS.get(name);
    if (forbidden) add(forbidden.code, `<${el.name}> found: ${forbidden.why}`);
    if (ANIMATION_ELEMENTS.has(name)) add('animation', `<${el.name}> found: animation is not allowed`);
    if (name === 'style') {
      for (const ref of externalCssReferences(textOf(el))) add('external_reference', `a <style> element refers to "${ref}": only references inside the file (#id) are allowed`);
    }
    for (const [attr, value] of Object.entries(el.attributes)) {
      const attrName = localName(attr);
      if (attr.startsWith('xmlns')) continue;
      if (/^on/i.test(attrName)) add('event_attribute', `<${el.name}> has the event attribute ${attr}: scripting is not allowed`);
      if (attrName === 'href' && !value.trim().startsWith('#')) {
        add('external_reference', `<${el.name}> ${attr}="${value}": only references inside the file (#id) are allowed`);
      }
      for (const ref of externalCssReferences(value)) {
        add('external_reference', `<${el.name}> ${attr} refers to "${ref}": only references inside the file (#id) are allowed`);
      }
    }
  }
  return issues;
}

const issue = (code: string, message: string): BimiIssue => ({ code, message });

/** TLS errors of a certificate chain no trusted CA vouches for (not an expired or misnamed one). */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** Drops a response body unread; undici reports the abort as an 'error' event that nobody else listens to. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** GETs a logo from its https URL and checks it; every problem is an issue, nothing throws. */
export async function fetchBimiLogo(url: string, options: FetchBimiLogoOptions = {}): Promise<{ svg: string | null; issues: BimiIssue[] }> {
  const allowPrivate = options.allowPrivate ?? false;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? BIMI_MAX_SVG_BYTES + 1;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { svg: null, issues: [issue('invalid_url', `"${url}" is not an absolute URL`)] };
  }
  if (target.protocol !== 'https:') return { svg: null, issues: [issue('not_https', `the logo URL must use https; found ${target.protocol.slice(0, -1)}`)] };
  // IP literals are connected to without a lookup: the guarded lookup below never sees them
  const refused = checkWebhookUrl(url, allowPrivate);
  if (refused) return { svg: null, issues: [issue('refused_address', `the logo URL ${refused}`)] };

  const agent = new Agent({
    connect: {
      lookup: guardedLookup(allowPrivate) as never,
      timeout: timeoutMs,
      ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}),
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const res = await request(target, {
      method: 'GET',
      headers: { accept: 'image/svg+xml' },
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.statusCode >= 300 && res.statusCode < 400) {
      discard(res.body);
      const location = res.headers.location;
      const where = Array.isArray(location) ? location[0] : location;
      return {
        svg: null,
        issues: [issue('redirect', `the server answered ${res.statusCode} redirecting to ${where ?? '(no Location)'}; redirects are not followed: publish the final URL`)],
      };
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      discard(res.body);
      return { svg: null, issues: [issue('http_status', `the server answered ${res.statusCode}`)] };
    }
    const issues: BimiIssue[] = [];
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'image/svg+xml') issues.push(issue('content_type', `the logo is served as ${contentType || '(no content type)'}; it must be image/svg+xml`));

    const tooLarge = () => issue('too_large', `the logo is more than ${maxBytes} bytes (not read further); BIMI recommends at most ${BIMI_MAX_SVG_BYTES} (32 KiB)`);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(res.body);
      return { svg: null, issues: [...issues, tooLarge()] };
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body) {
      received += (chunk as Buffer).length;
      if (received > maxBytes) {
        discard(res.body);
        return { svg: null, issues: [...issues, tooLarge()] };
      }
      chunks.push(chunk as Buffer);
    }
    let svg: string;
    try {
      svg = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      return { svg: null, issues: [...issues, issue('encoding', 'the logo is not valid UTF-8')] };
    }
    return { svg, issues: [...issues, ...checkBimiSvg(svg)] };
  } catch (err) {
    const e = err as Error & { code?: string; cause?: Error & { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
      return { svg: null, issues: [issue('timeout', `no complete answer within ${timeoutMs} ms`)] };
    }
    if (e.code === 'EPRIVATEADDRESS' || e.cause?.code === 'EPRIVATEADDRESS') {
      return { svg: null, issues: [issue('refused_address', (e.cause ?? e).message)] };
    }
    // a certificate no trusted CA signed: an internal CA is trusted with OUTBOUND_CA_FILE (README "Email domains")
    const hint = UNTRUSTED_CERTIFICATE.has(e.code ?? e.cause?.code ?? '') ? '; a certificate of an internal CA is trusted with OUTBOUND_CA_FILE (a PEM file)' : '';
    return { svg: null, issues: [issue('fetch_failed', `fetching the logo failed: ${e.cause?.message ?? e.message}${hint}`)] };
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/** The TXT record publishing a logo (or, with null, declining BIMI for the domain). */
export function bimiRecord(domain: string, logoUrl: string | null): { type: 'TXT'; name: string; value: string } {
  // the record is a tag list: a ';' or ',' (l= may list several URIs) or whitespace in the URL would end it early
  const location = (logoUrl ?? '').replace(/[;,\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return { type: 'TXT', name: `default._bimi.${domain.trim().replace(/\.+$/, '').toLowerCase()}`, value: `v=BIMI1; l=${location}; a=;` };
}
