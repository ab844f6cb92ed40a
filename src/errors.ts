// One error type for every 4xx the API returns; its body is the flat shape of README "API conventions".
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export interface Issue {
  path: string;
  message: string;
}

export const validationError = (message: string, issues: Issue[] = []) =>
  new AppError(400, 'validation_error', message, { issues });

/** The issues in one line ("path: message; …"), the message of a validation error. */
export const describeIssues = (issues: readonly Issue[]) => issues.map((i) => `${i.path}: ${i.message}`).join('; ');

/** A 400 naming every issue. */
export const invalid = (issues: Issue[]) => validationError(describeIssues(issues), issues);

/** A 400 that names one field. */
export const invalidField = (path: string, message: string) =>
  validationError(`${path}: ${message}`, [{ path, message }]);

/**
 * A body of a media type the route does not read (415): `given` is the request's media type, `expected`
 * what to send instead, `mustBe` the same in the issue naming the header.
 */
export const unsupportedMediaType = (given: string, expected: string, mustBe = `must be ${expected}`) =>
  new AppError(415, 'unsupported_media_type', `unsupported content type ${given || '(none)'}; send ${expected}`, { issues: [{ path: 'Content-Type', message: mustBe }] });

export const notFound = (what = 'resource') => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, extra: Record<string, unknown> = {}) => new AppError(409, 'conflict', message, extra);
/** The answer to a write that met a newer revision of its stream on every retry: nothing of it was applied. */
export const WRITE_CONFLICT = conflict('what this request changes was changed by another request at the same time; send it again');
export const unauthorized = (message = 'missing or invalid credentials') => new AppError(401, 'unauthorized', message);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
/** A key lacking capabilities: the first missing one (required_scope) and all of them (missing_scopes). */
export const insufficientScope = (missing: readonly string[], message?: string) =>
  new AppError(403, 'insufficient_scope', message ?? `this API key lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''}`, {
    required_scope: missing[0],
    missing_scopes: [...missing],
  });
