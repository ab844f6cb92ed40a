// Text Postgres can store, made from text it cannot: Postgres text and jsonb hold no NUL, and jsonb
// refuses an unpaired UTF-16 surrogate. What comes in from outside without a person to answer — an
// inbound email, a provider callback — is cleaned with these where it enters (README "Security notes").

const NUL = /\u0000/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether Postgres can store `text` as it is (the JSON routes refuse what it cannot: src/http/common.ts). */
export const isStorable = (text: string): boolean => !UNSTORABLE.test(text);

/** `text` without NUL characters, each unpaired surrogate replaced by U+FFFD (as a UTF-8 decoder reads a broken sequence). */
export const storableText = (text: string): string => text.replace(NUL, '').replace(LONE_SURROGATE, '\ufffd');

/** An object of a parsed document: a parsed body, or a query string or route params (a prototype with none of its own). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
};

/**
 * Makes every string in a parsed document storable in place — array items, object keys and values —
 * and returns it. Iterative: a JSON body of any depth (JSON.parse takes millions of levels) cannot
 * overflow the stack here. Anything but strings, arrays and plain objects is left as it is.
 */
export function makeStorable<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (typeof v[i] === 'string') v[i] = storableText(v[i]);
        else if (v[i] !== null && typeof v[i] === 'object') stack.push(v[i]);
      }
    } else if (isPlainObject(v)) {
      for (const k of Object.keys(v)) {
        const child = v[k];
        const cleaned = typeof child === 'string' ? storableText(child) : child;
        const key = storableText(k);
        // (a cleaned key equal to another key of the object replaces it: the document had both)
        if (key !== k) delete v[k];
        // defined, not assigned: a "__proto__" key of a parsed document stays a plain property
        if (key !== k || cleaned !== child) Object.defineProperty(v, key, { value: cleaned, writable: true, enumerable: true, configurable: true });
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  return value;
}
