// The account's settings over real HTTP: GET /v1/account/settings (read) and PATCH (the settings
// capability) of the default country (phones without + in imports) and the time zone (quiet hours).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountStream } from '../../commands/account.ts';
import { accountSettings, accountTimezones, authProjection } from '../../projections/auth.ts';
import { addUser } from '../../src/accounts/service.ts';
import { testServerForSuite } from '../support/harness.ts';
import { rebuildAndWait } from '../support/rebuild.ts';

const server = testServerForSuite({ RATE_LIMITS_ENABLED: 'false' });

const get = (key: string) => server.call('GET', '/v1/account/settings', { key });
const patch = (key: string, body: unknown) => server.call('PATCH', '/v1/account/settings', { key, body });
const issuePaths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);
const settingsEvents = async (accountId: string) =>
  (await server.engage.store.readStream(accountStream(accountId))).filter((e) => e.type === 'AccountSettingsChanged').map((e) => e.data);

describe('account settings', () => {
  it('are both null until set', async () => {
    const { key } = await server.newAccount();
    const res = await get(key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ default_country: null, timezone: null, template_variables: 'lenient' });
  });

  it('are set, read back, changed one at a time, and cleared with null; the same values again append nothing', async () => {
    const { key, accountId } = await server.newAccount();
    const set = await patch(key, { default_country: 'fr', timezone: 'Europe/Paris' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'lenient' });
    expect((await get(key)).body).toEqual({ default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'lenient' });

    // a field left out stays as it is
    expect((await patch(key, { timezone: 'America/New_York' })).body).toEqual({ default_country: 'FR', timezone: 'America/New_York', template_variables: 'lenient' });
    expect((await get(key)).body).toEqual({ default_country: 'FR', timezone: 'America/New_York', template_variables: 'lenient' });

    // the same values again: answered, nothing appended
    expect((await patch(key, { default_country: 'FR' })).body).toEqual({ default_country: 'FR', timezone: 'America/New_York', template_variables: 'lenient' });
    expect(await settingsEvents(accountId)).toHaveLength(2);

    expect((await patch(key, { default_country: null })).body).toEqual({ default_country: null, timezone: 'America/New_York', template_variables: 'lenient' });
    expect((await patch(key, { timezone: null })).body).toEqual({ default_country: null, timezone: null, template_variables: 'lenient' });
    expect((await get(key)).body).toEqual({ default_country: null, timezone: null, template_variables: 'lenient' });
    expect((await settingsEvents(accountId)).at(-1)).toMatchObject({ account_id: accountId, default_country: null, timezone: null, changed_at: expect.any(String) });
  });

  it('refuse an invalid country or time zone, a wrong type and an unknown field with 400 naming it, changing nothing', async () => {
    const { key } = await server.newAccount();
    await patch(key, { default_country: 'DE', timezone: 'Europe/Berlin' });
    const cases: [unknown, string][] = [
      [{ default_country: 'XX' }, 'default_country'],
      [{ default_country: 'France' }, 'default_country'],
      [{ default_country: 33 }, 'default_country'],
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ template_variables: 'loose' }, 'template_variables'],
      [{ template_variables: null }, 'template_variables'],
      [{ timezone: 'Europe/Paris', default_country: 'FR', language: 'fr' }, 'language'],
    ];
    for (const [body, path] of cases) {
      const res = await patch(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(issuePaths(res.body), JSON.stringify(body)).toContain(path);
      expect(res.body.message).toContain(path);
    }
    expect((await get(key)).body).toEqual({ default_country: 'DE', timezone: 'Europe/Berlin', template_variables: 'lenient' });
  });

  it('need the settings capability to change: a read-only key and a member may read them, not change them', async () => {
    const acct = await server.newAccount();
    await patch(acct.key, { default_country: 'GB' });
    const readOnly = await server.call('POST', '/v1/account/api-keys', { key: acct.key, body: { scopes: ['read'] } });
    expect(readOnly.status).toBe(201);
    expect((await get(readOnly.body.key)).body).toEqual({ default_country: 'GB', timezone: null, template_variables: 'lenient' });
    const refused = await patch(readOnly.body.key, { default_country: 'FR' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', required_scope: 'settings' });

    const email = `member-${randomBytes(4).toString('hex')}@example.com`;
    const added = await addUser(server.engage, acct.accountId, { email, password: 'member password', role: 'member' }, { actor: 'test' });
    await server.engage.runner.waitFor(['auth'], added.position, 15_000);
    const { token } = (await server.call('POST', '/v1/auth/login', { body: { email, password: 'member password' } })).body;
    expect((await server.call('GET', '/v1/account/settings', { token })).body).toEqual({ default_country: 'GB', timezone: null, template_variables: 'lenient' });
    const member = await server.call('PATCH', '/v1/account/settings', { token, body: { default_country: 'FR' } });
    expect(member.status).toBe(403);
    expect(member.body).toMatchObject({ error: 'forbidden', required_scope: 'settings' });

    // the owner's session may
    const owner = (await server.call('POST', '/v1/auth/login', { body: { email: acct.email, password: acct.password } })).body.token;
    expect((await server.call('PATCH', '/v1/account/settings', { token: owner, body: { timezone: 'Europe/London' } })).body).toEqual({ default_country: 'GB', timezone: 'Europe/London', template_variables: 'lenient' });
    expect((await get(acct.key)).body).toEqual({ default_country: 'GB', timezone: 'Europe/London', template_variables: 'lenient' });
  });

  it('belong to their account: another account sees its own', async () => {
    const a = await server.newAccount('A');
    const b = await server.newAccount('B');
    await patch(a.key, { default_country: 'FR', timezone: 'Europe/Paris' });
    expect((await get(b.key)).body).toEqual({ default_country: null, timezone: null, template_variables: 'lenient' });
    await patch(b.key, { default_country: 'US' });
    expect((await get(a.key)).body).toEqual({ default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'lenient' });
  });

  it('are in the OpenAPI document, the PATCH body strict', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    const path = doc.paths['/v1/account/settings'];
    expect(Object.keys(path).sort()).toEqual(['get', 'patch']);
    const schema = path.patch.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['default_country', 'template_variables', 'timezone']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('survive a rebuild of the auth read model', async () => {
    const { key, accountId } = await server.newAccount();
    await patch(key, { default_country: 'IT', timezone: 'Europe/Rome' });
    await rebuildAndWait(server, authProjection);
    expect((await get(key)).body).toEqual({ default_country: 'IT', timezone: 'Europe/Rome', template_variables: 'lenient' });
    expect(await accountTimezones(server.engage.pool, [accountId, accountId])).toEqual(new Map([[accountId, 'Europe/Rome']]));
  });

  it('read as unset, rather than failing, while an auth read model built by older code (no settings columns) is still live', async () => {
    const { key, accountId } = await server.newAccount();
    await patch(key, { default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'strict' });
    // the accounts view as versions 2 and 3 of the read model had it, first on the search path
    const client = await server.engage.pool.connect();
    try {
      await client.query('CREATE SCHEMA auth_v2');
      await client.query('CREATE TABLE auth_v2.accounts AS SELECT id, name, created_at, webhook_secret_sealed FROM public.accounts');
      await client.query('SET search_path = auth_v2, public');
      expect(await accountSettings(client, accountId)).toEqual({ default_country: null, timezone: null, template_variables: 'lenient' });
      expect(await accountTimezones(client, [accountId])).toEqual(new Map());
      await client.query('RESET search_path');
      await client.query('CREATE SCHEMA auth_v3');
      await client.query('CREATE TABLE auth_v3.accounts AS SELECT id, name, created_at, webhook_secret_sealed, default_country, timezone FROM public.accounts');
      await client.query('SET search_path = auth_v3, public');
      // the settings it has are read; the one it has not is at its default
      expect(await accountSettings(client, accountId)).toEqual({ default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'lenient' });
      expect(await accountTimezones(client, [accountId])).toEqual(new Map([[accountId, 'Europe/Paris']]));
    } finally {
      await client.query('RESET search_path');
      await client.query('DROP SCHEMA IF EXISTS auth_v2 CASCADE');
      await client.query('DROP SCHEMA IF EXISTS auth_v3 CASCADE');
      client.release();
    }
    // and as they are once the new generation serves
    expect(await accountSettings(server.engage.pool, accountId)).toEqual({ default_country: 'FR', timezone: 'Europe/Paris', template_variables: 'strict' });
  });
});
