// Statements prepared once per connection (README "The write path"). A statement sent with its text
// is parsed, analysed and planned on every call; for the short statements a single write runs (a data
// key, a claim, a read model's look-up) that cost Postgres about as much as running them. One sent by
// name is parsed once per connection; where Postgres finds a plan made without the values no dearer
// than one made for them (after five calls), it plans it once too, and otherwise still plans each call.
//
// For statements whose text is one of a few (a read model's text names its generation's tables: a
// name per text), that list the columns they return (a prepared `*` fails once the columns under it
// change), and whose plans do not hinge on the values (keys given as an index condition).
import { hash } from 'node:crypto';

const names = new Map<string, string>();

/** The statement as node-postgres prepares it: named after its text, so another text never reuses a name. */
export function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) {
    name = `engage_${hash('sha1', text).slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

/**
 * The migration text of a function that runs one query, planned once per session (a generic plan)
 * and with JIT off: for a look-up outside any read model's batch whose plan does not hinge on its
 * values (keys given as index conditions), which Postgres, sent it by name, kept planning for each
 * call's values (README "The write path"). Over the read models' views, so a generation swapped in
 * later is read: dropping the view the plan was made over makes the session plan it again.
 */
export function plannedOnceFunction(signature: string, returns: string, query: string): string {
  return `
CREATE OR REPLACE FUNCTION ${signature}
RETURNS TABLE (${returns})
LANGUAGE plpgsql STABLE SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
  ${query};
END
$fn$;
`;
}
