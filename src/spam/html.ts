// What the spam rules need to know about an HTML body, read once: its visible and hidden text, its
// links and images, active content (scripts, forms), and where its markup is broken. Parsed with
// parse5 as a browser would; the balance of tags is checked on the source with a tag stack, since
// a parser repairs exactly what that check is looking for.
import { parse, parseFragment, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

export interface HtmlLink {
  href: string;
  /** the link's visible text, whitespace collapsed */
  text: string;
}

export interface HtmlFacts {
  visibleText: string;
  hiddenText: string;
  links: HtmlLink[];
  images: number;
  scripts: string[];
  forms: string[];
  /** tokenizer errors and unbalanced tags, in words */
  markupProblems: string[];
}

const NOT_RENDERED = new Set(['script', 'style', 'head', 'title', 'template', 'noscript']);
const FORM_ELEMENTS = new Set(['form', 'input', 'select', 'textarea']);
const ACTIVE_ELEMENTS = new Set(['script', 'iframe', 'object', 'embed', 'applet']);

/** Inline elements: text on both sides of one runs on as one word; every other element separates words. */
const INLINE = new Set(['a', 'abbr', 'b', 'big', 'code', 'em', 'font', 'i', 'mark', 's', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'u']);

const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;

/** Hidden by its own attributes: display:none, visibility:hidden, a font size of 2 px or less, or `hidden`. */
function hides(el: Element): boolean {
  if (attr(el, 'hidden') !== undefined) return true;
  const style = (attr(el, 'style') ?? '').toLowerCase().replace(/\s+/g, '');
  if (/(?:^|;)display:none/.test(style) || /(?:^|;)visibility:hidden/.test(style)) return true;
  const size = /(?:^|;)font-size:([\d.]+)(px|pt|em|rem)?/.exec(style);
  if (size) {
    const value = Number(size[1]);
    const px = size[2] === 'pt' ? value * 1.33 : size[2] === 'em' || size[2] === 'rem' ? value * 16 : value;
    if (px <= 2) return true;
  }
  return false;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The markup problems a parser would silently repair: tokenizer errors, unclosed, stray and misnested tags. */
function markupProblemsOf(html: string): string[] {
  const problems: string[] = [];
  const tokenizerErrors = new Set<string>();
  parseFragment(html, { onParseError: (e) => tokenizerErrors.add(e.code) });
  for (const code of tokenizerErrors) problems.push(`malformed markup (${code})`);
  return [...problems, ...unbalancedTags(html)];
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'basefont', 'bgsound', 'frame', 'keygen']);
/** Elements whose end tag HTML lets an author leave out. */
const OPTIONAL_END = new Set(['html', 'head', 'body', 'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'colgroup', 'caption', 'rb', 'rt', 'rp', 'rtc']);
/** A start or end tag, attribute values in quotes allowed to hold `>` */
// (no `<` inside: an unterminated tag ends at the next one. Allowed to run on, every `<` of a body
// without `>` scanned to its end: quadratic.)
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^<>"']|"[^"]*"|'[^']*')*)>/g;

/** Unclosed, stray and misnested tags found with a stack over the source (comments, scripts and styles skipped). */
export function unbalancedTags(html: string): string[] {
  const source = html.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/<(script|style|textarea|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '<$1></$1>').replace(/<!\[CDATA\[[\s\S]*?\]\]>|<![^>]*>|<\?[^>]*>/g, '');
  const stack: string[] = [];
  const problems: string[] = [];
  for (const m of source.matchAll(TAG)) {
    const [, closing, rawName, rest] = m;
    const name = rawName.toLowerCase();
    if (VOID.has(name)) continue;
    if (!closing) {
      if (!/\/\s*$/.test(rest)) stack.push(name);
      continue;
    }
    const at = stack.lastIndexOf(name);
    if (at < 0) {
      problems.push(`</${name}> closes nothing`);
      continue;
    }
    for (const open of stack.splice(at).slice(1)) if (!OPTIONAL_END.has(open)) problems.push(`<${open}> is not closed before </${name}>`);
  }
  for (const open of stack) if (!OPTIONAL_END.has(open)) problems.push(`<${open}> is never closed`);
  return problems;
}

function* children(node: Node): Generator<Node> {
  if ('childNodes' in node) yield* node.childNodes;
  if ('content' in node && node.content) yield* node.content.childNodes;
}

/** Reads an HTML body (a whole document or a fragment). */
export function readHtml(html: string): HtmlFacts {
  const root = /<html[\s>]|<!doctype/i.test(html) ? parse(html) : parseFragment(html);
  const visible: string[] = [];
  const hidden: string[] = [];
  const links: HtmlLink[] = [];
  const scripts = new Set<string>();
  const forms = new Set<string>();
  let images = 0;

  // the text inside each open link, so that nested text counts for every link it sits in. Walked with
  // a stack of its own, not by recursion: a body of 100,000 nested elements would overflow the call stack.
  type Step = { node: Node; isHidden: boolean; inLinks: string[][] } | { leave: () => void };
  const steps: Step[] = [{ node: root, isHidden: false, inLinks: [] }];
  const pushChildren = (node: Node, isHidden: boolean, inLinks: string[][]) => {
    const kids = [...children(node)];
    for (let i = kids.length - 1; i >= 0; i--) steps.push({ node: kids[i], isHidden, inLinks });
  };
  while (steps.length > 0) {
    const step = steps.pop()!;
    if ('leave' in step) {
      step.leave();
      continue;
    }
    const { node, isHidden, inLinks } = step;
    if (node.nodeName === '#text') {
      const value = (node as DefaultTreeAdapterMap['textNode']).value;
      (isHidden ? hidden : visible).push(value);
      if (!isHidden) for (const l of inLinks) l.push(value);
      continue;
    }
    if (!('tagName' in node)) {
      pushChildren(node, isHidden, inLinks);
      continue;
    }
    const el = node as Element;
    const tag = el.tagName;
    if (ACTIVE_ELEMENTS.has(tag)) scripts.add(`<${tag}>`);
    if (FORM_ELEMENTS.has(tag)) forms.add(`<${tag}>`);
    for (const a of el.attrs) {
      if (/^on[a-z]+$/i.test(a.name)) scripts.add(`${a.name} attribute`);
      if (['href', 'src', 'action', 'formaction'].includes(a.name) && /^\s*javascript:/i.test(a.value)) scripts.add('javascript: URL');
    }
    if (tag === 'img' || (tag === 'input' && attr(el, 'type')?.toLowerCase() === 'image')) images++;
    if (NOT_RENDERED.has(tag)) continue;
    const nowHidden = isHidden || hides(el);
    const href = tag === 'a' || tag === 'area' ? attr(el, 'href') : undefined;
    let own: string[] | undefined;
    if (href !== undefined && !nowHidden) {
      own = [];
      if (tag === 'area') own.push(attr(el, 'alt') ?? '');
    }
    // an image inside a link is what the reader sees of it
    if (tag === 'img' && !nowHidden) for (const l of inLinks) l.push(` ${attr(el, 'alt') ?? ''} `);
    const separate = !INLINE.has(tag);
    if (separate) (nowHidden ? hidden : visible).push(' ');
    const linkText = own;
    steps.push({
      leave: () => {
        if (separate) (nowHidden ? hidden : visible).push(' ');
        if (linkText) links.push({ href: href!.trim(), text: collapse(linkText.join('')) });
      },
    });
    pushChildren(el, nowHidden, linkText ? [...inLinks, linkText] : inLinks);
  }

  return {
    visibleText: collapse(visible.join('')),
    hiddenText: collapse(hidden.join('')),
    links,
    images,
    scripts: [...scripts],
    forms: [...forms],
    markupProblems: markupProblemsOf(html),
  };
}
