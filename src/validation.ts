// zod's issues as the issues of a validation_error body: shared by the HTTP edge and the domain
// validators (a message send, a bulk item), so it sits below both.
import type { z } from 'zod';
import type { Issue } from './errors.ts';

/** zod issues → the validation_error body's issues; unknown keys get one issue each, naming the field. */
export function toIssues(error: z.ZodError, prefix?: string): Issue[] {
  const issues: Issue[] = [];
  for (const i of error.issues) {
    const base = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) issues.push({ path: base ? `${base}.${k}` : k, message: 'unknown field' });
    } else {
      issues.push({ path: base || '(body)', message: i.message });
    }
  }
  return issues;
}
