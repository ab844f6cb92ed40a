// POST /v1/auth/login: a dashboard session (JWT) for an email and password.
import { z } from 'zod';
import type { Role } from '../../../commands/account.ts';
import { unauthorized } from '../../errors.ts';
import { DUMMY_HASH, verifyPassword } from '../../passwords.ts';
import type { AppDeps } from '../app.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const LoginBody = z.strictObject({ email: z.string().max(320), password: z.string().max(1024) });

export function authRoutes({ engage, authenticator }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/auth/login',
      auth: 'none',
      scope: null,
      rateGroup: 'login',
      summary: 'Log in to the dashboard; returns a 12-hour JWT',
      tags: ['auth'],
      body: LoginBody,
      responses: {
        200: z.object({ token: z.string(), expires_at: z.string(), account_id: z.string(), user_id: z.string() }),
      },
      async handler({ body }) {
        const { rows } = await engage.pool.query<{ id: string; account_id: string; role: Role; password_hash: string }>(
          'SELECT id, account_id, role, password_hash FROM users WHERE email = $1',
          [body.email.trim().toLowerCase()],
        );
        const user = rows[0];
        // verify against a dummy hash when there is no user, so both failures take the same time
        const ok = await verifyPassword(body.password, user?.password_hash ?? DUMMY_HASH);
        if (!user || !ok) throw unauthorized('invalid email or password');
        const { token, expires_at } = await authenticator.issueToken(user);
        return { token, expires_at, account_id: user.account_id, user_id: user.id };
      },
    }),
  ];
}
