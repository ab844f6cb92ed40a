// GET /v1/account/me, the account's settings (default country, time zone), API key management
// (list, issue, rotate with a 24-hour grace, revoke) and address erasures.
import { z } from 'zod';
import { accountDecider, accountStream, type Role, type Scope } from '../../../commands/account.ts';
import { accountSettings, type ApiKeyRow, findAccount, findApiKey, listApiKeys, userProfile } from '../../../projections/auth.ts';
import { issueApiKey, rotateApiKey } from '../../accounts/service.ts';
import { runCommand } from '../../command-handler.ts';
import { CountrySchema, EmailSchema, PhoneSchema, TimezoneSchema } from '../../contacts/validation.ts';
import { ERASURE_READ_MODELS, ErasureBody, eraseAddress } from '../../personal-data/erasure.ts';
import type { AppDeps } from '../deps.ts';
import { found, iso, metadataOf } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AuthContext, capabilityRefusal, hasCapability } from '../plugins/auth.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

const ALL_SCOPES: Scope[] = ['read', 'write', 'settings'];
const ScopeList = z.array(z.enum(ALL_SCOPES)).min(1).max(3);
const KeyParams = z.object({ id: z.string().max(64) });

/** The read model a write's response waits for. */
const AUTH = ['auth'];

/** A setting left out stays as it is; null clears it. */
const TemplateVariablesSchema = z.enum(['strict', 'lenient']);
const SettingsBody = z.strictObject({
  default_country: CountrySchema.nullable().optional(),
  timezone: TimezoneSchema.nullable().optional(),
  template_variables: TemplateVariablesSchema.optional(),
});
const SettingsOut = z
  .object({
    default_country: z.string().nullable().describe('ISO 3166-1 alpha-2: the country of phone numbers written without + (imports)'),
    timezone: z.string().nullable().describe('IANA time zone of quiet hours'),
    template_variables: TemplateVariablesSchema.describe('strict: a send that leaves a variable of its template without a value is refused (400, naming them); lenient (the default): it renders empty'),
  })
  .meta({ id: 'AccountSettings', description: "The account's settings (null: not set)" });

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly Role[];
const KeyScopes = z.array(z.enum(ALL_SCOPES)).nullable().describe('null: every scope (full access)');

const MeOut = z.object({
  account: z.object({ id: z.string(), name: z.string(), created_at: DateTime }),
  credential: z
    .union([
      z.object({ type: z.literal('api_key'), key_id: z.string(), scopes: KeyScopes }),
      z.object({ type: z.literal('session'), user_id: z.string(), role: z.enum(ROLES) }),
    ])
    .describe('what the request was authenticated with'),
  user: z.object({ id: z.string(), email: z.string(), role: z.enum(ROLES) }).optional().describe('the signed-in user (a session)'),
});

/** An API key as listed (keyOut): never its secret. */
const ApiKeyOut = z
  .object({
    id: z.string(),
    prefix: z.string().describe('the start of the key, to recognise it by'),
    name: z.string().nullable(),
    scopes: KeyScopes,
    created_at: DateTime,
    expires_at: DateTime.nullable().describe('set when it was rotated: it works until then'),
    revoked_at: DateTime.nullable(),
    replaces: z.string().nullable().describe('the key it was rotated from'),
  })
  .meta({ id: 'ApiKey', description: 'An API key (its secret is shown only when it is issued)' });

const IssuedKeyOut = z.object({
  id: z.string(),
  key: z.string().describe('the key itself (ek_live_…): shown this once'),
  scopes: KeyScopes,
  name: z.string().nullable(),
});

const RotatedKeyOut = z.object({
  id: z.string(),
  key: z.string().describe('the new key (ek_live_…): shown this once'),
  replaces: z.string().describe('the old key'),
  old_key_expires_at: DateTime.describe('the old key works until then (24 hours)'),
});

const AddressErasureOut = z.object({
  erasure_id: z.string(),
  erased_at: DateTime,
  contact_ids: z.array(z.string()).describe('the contacts that had the address, erased too'),
  keys_destroyed: z.int().describe('data keys destroyed: what they sealed is unreadable for good'),
});

const AddressErasureBody = ErasureBody.extend({ email: EmailSchema.optional(), phone: PhoneSchema.optional() }).refine((b) => (b.email === undefined) !== (b.phone === undefined), {
  message: 'give email or phone (one of them)',
  path: ['email'],
});

/**
 * A credential never mints or rotates into more than it holds (issue 8, finding 1): the key to be
 * issued may carry only scopes the caller has (a key's own scopes; a session's role capabilities,
 * README "API conventions"). No scope list means every scope, so only a caller with every scope gets one.
 */
function requireWithinCaller(auth: AuthContext, scopes: Scope[] | null, action: string): void {
  const missing = (scopes ?? ALL_SCOPES).filter((s) => !hasCapability(auth, s));
  if (missing.length === 0) return;
  const wanted = scopes === null ? 'full access (no scope list)' : `scopes ${scopes.join(', ')}`;
  const who = auth.via === 'key' ? 'this API key' : 'your role';
  throw capabilityRefusal(auth, missing, `${who} cannot ${action} with ${wanted}: it lacks ${missing.join(', ')}`);
}

const keyOut = (k: ApiKeyRow) => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  scopes: k.scopes,
  created_at: iso(k.created_at),
  expires_at: iso(k.expires_at),
  revoked_at: iso(k.revoked_at),
  replaces: k.replaces,
});

export function accountRoutes({ engage, authenticator }: AppDeps): AnyRoute[] {
  const ownKey = async (accountId: string, id: string) => found(await findApiKey(engage.pool, accountId, id), 'api key');
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/account/me',
      auth: 'key_or_login',
      operationId: 'getMe',
      summary: 'The calling account and credential',
      tags: ['account'],
      responses: { 200: MeOut },
      // the account is not in the read model (yet)
      errors: [404],
      async handler({ auth }) {
        const account = found(await findAccount(engage.pool, auth.accountId), 'account');
        const user = auth.userId ? await userProfile(engage.pool, auth.userId) : undefined;
        return {
          account: { id: account.id, name: account.name, created_at: iso(account.created_at) },
          credential:
            auth.via === 'key'
              ? { type: 'api_key', key_id: auth.keyId, scopes: auth.scopes }
              : { type: 'session', user_id: auth.userId, role: auth.role },
          ...(user ? { user } : {}),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/settings',
      auth: 'key_or_login',
      operationId: 'getAccountSettings',
      summary: "The account's settings: the default country of phone numbers (imports), the time zone of quiet hours, and whether templates' variables are strict",
      tags: ['account'],
      responses: { 200: SettingsOut },
      async handler({ auth }) {
        return accountSettings(engage.pool, auth.accountId);
      },
    }),
    defineRoute({
      method: 'PATCH',
      url: '/v1/account/settings',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'updateAccountSettings',
      summary: "Change the account's settings (a field left out stays as it is, null clears it)",
      tags: ['account'],
      body: SettingsBody,
      responses: { 200: SettingsOut },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ body, auth, req }) {
        const { state } = await runCommand(engage, metadataOf(req), AUTH, {
          decider: accountDecider,
          streamId: accountStream(auth.accountId),
          command: { type: 'SetAccountSettings', defaultCountry: body.default_country, timezone: body.timezone, templateVariables: body.template_variables, now: engage.clock.now() },
        });
        // the settings as written (the auth read model has them too, unless its wait timed out)
        return state.settings;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/account/api-keys',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'listApiKeys',
      summary: "List the account's API keys (never the secrets)",
      tags: ['account'],
      responses: { 200: Page(ApiKeyOut).describe('every key, in one page') },
      async handler({ auth }) {
        return { data: (await listApiKeys(engage.pool, auth.accountId)).map(keyOut), next_cursor: null };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/api-keys',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'createApiKey',
      summary: 'Issue a new API key; the key is shown once',
      tags: ['account'],
      body: z.strictObject({ name: z.string().min(1).max(100).optional(), scopes: ScopeList.nullable().optional() }),
      responses: { 201: IssuedKeyOut },
      async handler({ body, auth, req, reply }) {
        requireWithinCaller(auth, body.scopes ?? null, 'create a key');
        const issued = await runCommand(engage, metadataOf(req), AUTH, (metadata) => issueApiKey(engage, auth.accountId, { name: body.name ?? null, scopes: body.scopes ?? null }, metadata));
        reply.code(201);
        return { id: issued.key_id, key: issued.key, scopes: body.scopes ?? null, name: body.name ?? null };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/api-keys/:id/rotate',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'rotateApiKey',
      summary: 'Rotate a key: a new key now, the old one keeps working for 24 hours',
      tags: ['account'],
      params: KeyParams,
      responses: { 201: RotatedKeyOut },
      async handler({ params, auth, req, reply }) {
        const old = await ownKey(auth.accountId, params.id);
        // the new key keeps the old one's scopes (the decider copies them), so rotating is minting those scopes
        requireWithinCaller(auth, old.scopes, 'rotate a key');
        const rotated = await runCommand(engage, metadataOf(req), AUTH, (metadata) => rotateApiKey(engage, auth.accountId, params.id, metadata));
        authenticator.forget();
        reply.code(201);
        return { id: rotated.key_id, key: rotated.key, replaces: params.id, old_key_expires_at: rotated.old_key_expires_at };
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/account/api-keys/:id',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'deleteApiKey',
      summary: 'Revoke a key at once',
      tags: ['account'],
      params: KeyParams,
      responses: { 200: z.object({ id: z.string(), revoked: z.literal(true) }) },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        await ownKey(auth.accountId, params.id);
        await runCommand(engage, metadataOf(req), AUTH, {
          decider: accountDecider,
          streamId: accountStream(auth.accountId),
          command: { type: 'RevokeApiKey', keyId: params.id, now: engage.clock.now() },
        });
        authenticator.forget();
        return { id: params.id, revoked: true };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/account/erasures',
      auth: 'key_or_login',
      scope: 'settings',
      operationId: 'eraseAddress',
      summary: 'Erase an email address or phone number: messages sent to it, and every contact that has it (right to erasure)',
      tags: ['account'],
      body: AddressErasureBody,
      responses: { 200: AddressErasureOut },
      async handler({ body, auth, req }) {
        const address = body.email ?? body.phone!;
        const erased = await runCommand(engage, metadataOf(req), ERASURE_READ_MODELS, (metadata) =>
          eraseAddress(engage, auth.accountId, address, { reason: body.reason, actor: auth.actor }, metadata),
        );
        return { erasure_id: erased.erasure_id, erased_at: erased.erased_at, contact_ids: erased.contact_ids, keys_destroyed: erased.keys_destroyed };
      },
    }),
  ];
}
