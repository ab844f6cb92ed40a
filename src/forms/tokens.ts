// The two signed values of signup forms (README "Signup forms"), made with this deployment's secret
// (generated once, kept in service_secrets) so neither can be forged or altered:
//
//   the start token a hosted form carries, when it was shown:  s1.<form id>.<ms, base 36>.<mac>
//   the confirmation link's token:                            c1.<submission id>.<expiry s, base 36>.<mac>
//
// mac = base64url(HMAC-SHA256(secret, everything before it)). Both fit one path segment (under 100
// characters). "s1"/"c1" are versions: a later format gets another prefix.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { isId } from '../ids.ts';
import { storedSecret } from '../service-secrets.ts';

const SECRET_NAME = 'form_token';
const MAC_BYTES = 32;

const mac = (key: string, signed: string) => createHmac('sha256', key).update(signed, 'utf8').digest();

export class FormTokens {
  private constructor(private readonly key: string) {}

  static async of(db: Pick<pg.Pool, 'query'>): Promise<FormTokens> {
    return new FormTokens(await storedSecret(db, SECRET_NAME));
  }

  private sign(payload: string): string {
    return `${payload}.${mac(this.key, payload).toString('base64url')}`;
  }

  /** The payload's parts of a genuine token of this version; undefined for anything else (malformed, altered, forged). */
  private open(token: string, version: string): string[] | undefined {
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== version) return undefined;
    const signature = parts[3];
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return undefined;
    // constant time: how much of the signature was right must not show in how long the answer takes
    if (!timingSafeEqual(given, mac(this.key, parts.slice(0, 3).join('.')))) return undefined;
    return parts.slice(1, 3);
  }

  /** When the form was shown (`at`), for its submission's minimum fill time. */
  startToken(formId: string, at: Date): string {
    return this.sign(`s1.${formId}.${at.getTime().toString(36)}`);
  }

  /** The time a genuine start token of this form says it was shown; undefined for any other value. */
  startedAt(formId: string, token: string): Date | undefined {
    const parts = this.open(token, 's1');
    if (!parts || parts[0] !== formId) return undefined;
    const ms = Number.parseInt(parts[1], 36);
    return Number.isFinite(ms) ? new Date(ms) : undefined;
  }

  confirmToken(submissionId: string, expiresAt: Date): string {
    return this.sign(`c1.${submissionId}.${Math.floor(expiresAt.getTime() / 1000).toString(36)}`);
  }

  /** The submission a genuine confirmation token names (its expiry is the submission's own, checked when it is confirmed). */
  submissionOf(token: string): string | undefined {
    const parts = this.open(token, 'c1');
    return parts && isId('formSubmission', parts[0]) ? parts[0] : undefined;
  }
}
