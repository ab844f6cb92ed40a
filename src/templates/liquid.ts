// The template language: Liquid, through liquidjs, sandboxed (README "Templates"). Templates are
// written by account users, so an engine here reads no file (include, render and layout find only
// an empty in-memory set), sees only an object's own properties, knows no filter it does not ship
// with, and stops a render that takes too long or allocates too much. HTML output is escaped; text
// output is not. A template version is parsed once per process (`compiled`).
import { Liquid, type Template } from 'liquidjs';
import type { Issue } from '../errors.ts';
import { RecentMap } from '../recent-map.ts';

/** The parts of a template, each a Liquid source (subject and html: email only). */
export interface TemplateParts {
  subject: string | null;
  text: string;
  html: string | null;
}

export type PartName = keyof TemplateParts;

/** The parts rendered (a part the template has not: null). */
export interface Rendered {
  subject: string | null;
  text: string;
  html: string | null;
}

/** What one render may cost: checked by liquidjs as it goes. */
const LIMITS = {
  /** characters of source parsed at once (the largest part, html, is 2,000,000) */
  parseLimit: 2_100_000,
  /** milliseconds of one part's render */
  renderLimit: 250,
  /** liquidjs' own count of what a render allocates (strings joined, arrays built) */
  memoryLimit: 20_000_000,
};

/** The longest each rendered part may be: what a send may carry (src/messages/validation.ts). */
export const MAX_OUTPUT: Record<PartName, number> = { subject: 998, text: 100_000, html: 2_000_000 };

const options = {
  // no file system: partials and layouts are looked up in this (empty) set only
  templates: {},
  ownPropertyOnly: true,
  strictFilters: true,
  ...LIMITS,
};
const textEngine = new Liquid(options);
const htmlEngine = new Liquid({ ...options, outputEscape: 'escape' });
// a template has no partials or layouts to name: these tags are refused when it is saved, rather
// than failing every render
for (const engine of [textEngine, htmlEngine]) {
  for (const name of ['include', 'render', 'layout']) {
    engine.registerTag(name, {
      parse() {
        throw new Error(`{% ${name} %} is not available: a template has no partials or layouts`);
      },
      render() {},
    });
  }
}
const engineOf = (part: PartName) => (part === 'html' ? htmlEngine : textEngine);

/** A Liquid error's own words and where in its source it is, from liquidjs's `<message>, line:L, col:C`. */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = /^(.*), line:(\d+), col:(\d+)$/s.exec(message);
  return at ? `line ${at[2]}, column ${at[3]}: ${at[1]}` : message;
}

/** Each part that does not parse, as an issue naming the part, the line and the column. */
export function syntaxIssues(parts: Partial<TemplateParts>, pathOf: (part: PartName) => string = (p) => p): Issue[] {
  const issues: Issue[] = [];
  for (const part of ['subject', 'text', 'html'] as const) {
    const source = parts[part];
    if (typeof source !== 'string') continue;
    try {
      engineOf(part).parse(source);
    } catch (err) {
      issues.push({ path: pathOf(part), message: `does not parse as Liquid: ${describe(err)}` });
    }
  }
  return issues;
}

/** A template version's parts, parsed. */
export interface Compiled {
  parts: { [P in PartName]: Template[] | null };
  /** every variable path the parts read from outside (contact.first_name, data.order.id …), once each */
  variables: string[][];
}

const compiledVersions = new RecentMap<string, Compiled>(2000);

/**
 * A version's parts parsed, once per process: `key` names the version (its template id and number);
 * sources that do not parse throw (they were checked when the version was saved).
 */
export function compiled(key: string, parts: TemplateParts): Compiled {
  const known = compiledVersions.get(key);
  if (known) return known;
  const out: Compiled = { parts: { subject: null, text: [], html: null }, variables: [] };
  const seen = new Set<string>();
  for (const part of ['subject', 'text', 'html'] as const) {
    const source = parts[part];
    if (source === null) continue;
    const engine = engineOf(part);
    const template = engine.parse(source);
    out.parts[part] = template;
    for (const path of engine.globalVariableSegmentsSync(template, { partials: false })) {
      const segments = path.map(String);
      const name = segments.join('.');
      if (!seen.has(name)) {
        seen.add(name);
        out.variables.push(segments);
      }
    }
  }
  compiledVersions.set(key, out);
  return out;
}

/** Whether `path` leads to a value in `scope` (null counts: the variable is there, empty). */
function resolves(scope: unknown, path: readonly string[]): boolean {
  let at = scope;
  for (const segment of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, segment)) {
      // liquid's own properties of what a path reaches: an array's or a string's size, first, last
      if ((Array.isArray(at) || typeof at === 'string') && (segment === 'size' || segment === 'first' || segment === 'last')) return true;
      return false;
    }
    at = (at as Record<string, unknown>)[segment];
  }
  return true;
}

/** The variables the template reads that `scope` does not have (what strict mode refuses), by their paths. */
export function missingVariables(template: Compiled, scope: object): string[] {
  return template.variables.filter((path) => !resolves(scope, path)).map((path) => path.join('.'));
}

/** A render that failed: the template's own error (a limit reached, a filter's error), named by part. */
export class RenderFailure extends Error {
  constructor(
    readonly part: PartName,
    detail: string,
  ) {
    super(`${part}: ${detail}`);
  }
}

/** Renders every part the template has with `scope` (leniently: a missing variable is empty). */
export function render(template: Compiled, scope: object): Rendered {
  const out: Rendered = { subject: null, text: '', html: null };
  for (const part of ['subject', 'text', 'html'] as const) {
    const parsed = template.parts[part];
    if (parsed === null) continue;
    let value: string;
    try {
      value = String(engineOf(part).renderSync(parsed, scope));
    } catch (err) {
      throw new RenderFailure(part, describe(err));
    }
    if (value.length > MAX_OUTPUT[part]) throw new RenderFailure(part, `the rendered ${part} is ${value.length} characters, more than ${MAX_OUTPUT[part]}`);
    // a subject is one line: what a loop or a variable put in it is folded to spaces
    out[part] = part === 'subject' ? value.replace(/[\r\n]+/g, ' ') : value;
  }
  return out;
}
