// POST /v1/auth/login: a dashboard session (JWT) for an email and password.
import { z } from 'zod';
import { userWithPasswordHash } from '../../../projections/auth.ts';
import { replaceCredentialHash } from '../../credentials.ts';
import { unauthorized } from '../../errors.ts';
import { dummyHash, hashPassword, passwordNeedsRehash, passwordParams, verifyPassword } from '../../accounts/passwords.ts';
import type { AppDeps } from '../deps.ts';
import { FAILED_LOGINS_PER_ACCOUNT, MemoryCounters, checkLimit, refusal } from '../plugins/rate-limit.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const LoginBody = z.strictObject({ email: z.string().max(320), password: z.string().max(1024) });

export function authRoutes({ engage, authenticator, counters = new MemoryCounters(engage.clock) }: AppDeps): AnyRoute[] {
  const limited = engage.config.RATE_LIMITS_ENABLED;
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/auth/login',
      auth: 'none',
      scope: null,
      rateGroup: 'login',
      operationId: 'login',
      summary: 'Log in to the dashboard; returns a 12-hour JWT',
      tags: ['auth'],
      body: LoginBody,
      responses: {
        200: z.object({
          token: z.string().describe('send it as Authorization: Bearer'),
          expires_at: z.string().meta({ format: 'date-time' }),
          account_id: z.string(),
          user_id: z.string(),
        }),
      },
      // a wrong email or password
      errors: [401],
      async handler({ body, req, reply }) {
        const email = body.email.trim().toLowerCase();
        // besides 20 attempts per 15 minutes per IP (rate-limit plugin): 10 failed logins per 15
        // minutes per account, counted by the email tried (existing or not, so this says nothing
        // about which emails exist). Over it, even the right password is refused until the window
        // slides: a guesser spread over many addresses gets no more tries. Each attempt is counted
        // up front and taken back when it succeeds.
        const failKey = `loginfail:${email}`;
        let attempt: string | undefined;
        if (limited) {
          const r = await checkLimit(counters, failKey, FAILED_LOGINS_PER_ACCOUNT);
          if (!r.allowed) throw refusal(reply, FAILED_LOGINS_PER_ACCOUNT, r.retryAfterS);
          attempt = r.ticket;
        }
        const user = await userWithPasswordHash(engage.pool, email);
        // verify against a dummy hash when there is no user, so both failures take the same time
        const params = passwordParams(engage.config.PASSWORD_SCRYPT_N);
        const ok = await verifyPassword(body.password, user?.password_hash ?? dummyHash(params));
        if (!user || !ok) throw unauthorized('invalid email or password');
        if (attempt) await counters.takeBack(failKey, attempt);
        if (passwordNeedsRehash(user.password_hash, params)) {
          // a hash made with an older, cheaper scrypt cost: the password is known right now, so store it at today's cost
          try {
            // the hash lives in the credentials table, not in events: a rehash is kept for good
            await replaceCredentialHash(engage.pool, 'password', user.id, user.password_hash, await hashPassword(body.password, params));
          } catch (err) {
            req.log.warn({ err, user_id: user.id }, 'could not store the rehashed password; the old hash keeps working');
          }
        }
        const { token, expires_at } = await authenticator.issueToken(user);
        return { token, expires_at, account_id: user.account_id, user_id: user.id };
      },
    }),
  ];
}

