import { describe, expect, it } from 'vitest';
import { testServerForSuite } from '../support/harness.ts';

describe('a fresh server', () => {
  const server = testServerForSuite();

  it('reports health with every projection', async () => {
    const res = await server.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: 'ok', eventstore: 'ok' });
    expect(res.body.projections.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['auth', 'contacts', 'custom_fields']));
  });

  it('creates a contact and lists it at once (read-your-writes)', async () => {
    const { key } = await server.newAccount();
    const created = await server.call('POST', '/v1/contacts', { key, body: { email: 'Ann@Example.com', first_name: 'Ann' } });
    expect(created.status).toBe(201);
    expect(created.body.email).toBe('ann@example.com');
    const listed = await server.call('GET', '/v1/contacts', { key });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
  });
});
