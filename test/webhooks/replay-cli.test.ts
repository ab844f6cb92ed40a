// The operator's replay commands (`engage webhooks replay | replay-status | replay-cancel`), run as
// real processes against the database of a running service, whose worker does the replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';
import { killAllEngageProcesses, runEngage, runEngageOnTerminal } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receivers.ts';
import { until } from '../support/waits.ts';

const server = testServerForSuite({ WEBHOOK_ALLOW_PRIVATE: 'true' });
let a: TestAccount;
let receiver: Receiver;
let endpointId: string;
let from: string;
beforeAll(async () => {
  receiver = await startReceiver();
  a = await server.newAccount('Operated');
  from = new Date(Date.now() - 1).toISOString();
  for (const n of [1, 2, 3]) expect((await server.call('POST', '/v1/contacts', { key: a.key, body: { email: `cli-${n}@example.com` } })).status).toBe(201);
  endpointId = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: receiver.url, events: ['contact.created', 'contact.updated'] } })).body.id;
});
afterAll(async () => {
  await killAllEngageProcesses();
  await receiver?.close();
});

/** The JSON documents a command printed one after another. */
const documents = (stdout: string) => stdout.split(/\n(?=\{)/).filter((s) => s.trim()).map((s) => JSON.parse(s));

describe('engage webhooks', () => {
  it('replay --json --wait starts the replay as the endpoint’s account and prints the job, then its final counts', async () => {
    const res = await runEngage(['webhooks', 'replay', '--endpoint', endpointId, '--from', from, '--types', 'contact.created', '--json', '--wait'], server.databaseUrl);
    expect(res.code, res.stderr).toBe(0);
    const [job, final] = documents(res.stdout);
    // (as the CLI read it back: the service's worker may have scanned the three events already)
    expect(job).toMatchObject({ id: expect.stringMatching(/^rpl_/), endpoint_id: endpointId, status: expect.stringMatching(/^(scanning|delivering|completed)$/), from_input: from, types: ['contact.created'] });
    expect(final).toMatchObject({ id: job.id, status: 'completed', found: 3, delivered: 3, failed: 0, pending: 0 });
    expect(receiver.where('x-service-replay', job.id)).toHaveLength(3);
    // the account sees it over HTTP
    const seen = await server.call('GET', `/v1/webhook-endpoints/${endpointId}/replays/${job.id}`, { key: a.key });
    expect(seen.body).toMatchObject({ status: 'completed', delivered: 3 });

    const status = await runEngage(['webhooks', 'replay-status', job.id, '--json'], server.databaseUrl);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(seen.body);
    const text = await runEngage(['webhooks', 'replay-status', job.id], server.databaseUrl);
    expect(text.stdout).toMatch(new RegExp(`replay ${job.id} to ${endpointId}: completed .*found 3, delivered 3, failed 0, pending 0`));

    const late = await runEngage(['webhooks', 'replay-cancel', job.id], server.databaseUrl);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/already completed/);
  });

  it('on a terminal, replay draws a progress bar until the replay has completed', async () => {
    const res = await runEngageOnTerminal(['webhooks', 'replay', '--endpoint', endpointId, '--from', from, '--types', 'contact.created'], server.databaseUrl);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    // the bar's frames, redrawn in place: the last one shows every delivery settled
    const text = res.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    const id = /replay (rpl_\w+) \[/.exec(text)?.[1];
    expect(id, text).toBeDefined();
    expect(text).toMatch(/\[[^\]]+\] 3\/3 settled \| completed/);
    expect(receiver.where('x-service-replay', id!)).toHaveLength(3);
  });

  it('replay without --wait (not a terminal) prints the job and returns; replay-cancel cancels one', async () => {
    // one that stays pending: its receiver is gone
    const gone = await startReceiver();
    await gone.close();
    const ep = (await server.call('POST', '/v1/webhook-endpoints', { key: a.key, body: { url: gone.url } })).body;
    const res = await runEngage(['webhooks', 'replay', '--endpoint', ep.id, '--from', from], server.databaseUrl);
    expect(res.code, res.stderr).toBe(0);
    const id = /^replay (rpl_\w+) to /.exec(res.stdout)?.[1];
    expect(id, res.stdout).toBeDefined();
    await until(() => server.call('GET', `/v1/webhook-endpoints/${ep.id}/replays/${id}`, { key: a.key }), (r) => r.body.found >= 3);
    const cancelled = await runEngage(['webhooks', 'replay-cancel', id!, '--json'], server.databaseUrl);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id, status: 'cancelled', pending: 0 });
  });

  it('an unknown endpoint or replay, a bad --from or type: exit 1 with the reason', async () => {
    const unknown = await runEngage(['webhooks', 'replay', '--endpoint', 'we_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--from', from], server.databaseUrl);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/webhook endpoint we_01ARZ3NDEKTSV4RRFFQ69G5FAV not found/);
    const badFrom = await runEngage(['webhooks', 'replay', '--endpoint', endpointId, '--from', 'last tuesday'], server.databaseUrl);
    expect(badFrom.code).toBe(1);
    expect(badFrom.stderr).toMatch(/from: must be a log position/);
    const badType = await runEngage(['webhooks', 'replay', '--endpoint', endpointId, '--from', from, '--types', 'contact.created,nope'], server.databaseUrl);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toMatch(/types: unknown: nope/);
    expect(badType.stderr).not.toMatch(/^\s+at\s/m);
    const noReplay = await runEngage(['webhooks', 'replay-status', 'rpl_01ARZ3NDEKTSV4RRFFQ69G5FAV'], server.databaseUrl);
    expect(noReplay.code).toBe(1);
    expect(noReplay.stderr).toMatch(/not found/);
  });
});
