// The operator's review of senders through the engage CLI (`engage senders approve|reject`), run as
// a real process against the database of a running service; the account sees the result over HTTP.
import { afterAll, describe, expect, it } from 'vitest';
import { readyAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { killAllEngageProcesses, runEngage } from '../support/processes.ts';
import { eventually } from '../support/waits.ts';

const server = testServerForSuite();
afterAll(async () => {
  await killAllEngageProcesses();
});

describe('engage senders approve | reject', () => {
  it('moves pending senders to approved or rejected; refuses unknown ids and second decisions with a clear message', async () => {
    const { key } = await readyAccount(server);
    const register = async (sender: string) => {
      const res = await server.call('POST', '/v1/senders', { key, body: { sender, channel: 'sms', country: 'SG' } });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending');
      return res.body.id as string;
    };
    const a = await register('Alpha');
    const b = await register('Beta');

    const approved = await runEngage(['senders', 'approve', a, '--json'], server.databaseUrl);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ id: a, status: 'approved' });
    const rejected = await runEngage(['senders', 'reject', b, '--reason', 'brand not verified'], server.databaseUrl);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain('rejected');

    const statusOf = async (id: string) => ((await server.call('GET', '/v1/senders', { key })).body.data as any[]).find((s) => s.id === id);
    await eventually('the review to show in the read model', async () => ((await statusOf(a))?.status === 'approved' && (await statusOf(b))?.status === 'rejected' ? true : undefined));
    expect(await statusOf(b)).toMatchObject({ rejection_reason: 'brand not verified' });

    // an operator's approval of a whatsapp number (after the platform's review) is its proof: it routes and sends
    const wa = await server.call('POST', '/v1/senders', { key, body: { sender: '+6591234999', channel: 'whatsapp', country: 'SG' } });
    expect(wa.body.verification.status).toBe('unverified');
    const waApproved = await runEngage(['senders', 'approve', wa.body.id], server.databaseUrl);
    expect(waApproved.code, waApproved.stderr).toBe(0);
    expect(waApproved.stdout).toMatch(/is approved; verification: verified/);
    await eventually('the whatsapp sender proven', async () => ((await statusOf(wa.body.id))?.verification.status === 'verified' ? true : undefined));

    const late = await runEngage(['senders', 'approve', b], server.databaseUrl);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/rejected sender cannot be approved/);
    const missing = await runEngage(['senders', 'approve', 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV'], server.databaseUrl);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/sender not found/);
    expect(missing.stderr).not.toMatch(/^\s+at\s/m);
  });
});
