// The dashboard's Campaigns and Domains pages in Chromium (README "Campaigns", "Email domains", "Link
// domains and click tracking"): a campaign made from the form for a segment, followed on its page until
// every message is delivered, and a scheduled one cancelled through the dialog, both read back through
// the API; an email domain added from the page, its records copied, published on a real DNS server on
// loopback and verified, its signing checked from pasted headers, its DMARC readiness and warm-up; a
// link domain added and verified; a viewer sees everything and no control that writes. axe-core finds
// no serious violation on any of these pages or open dialogs.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { dashboardSuite, expectAccessible, openFromNavigation, signedIn, userWithRole } from './support.ts';

// the server resolves names through a DNS server of this file (DNS_SERVERS), started before it: the
// overrides are read as the server starts
// the sandbox reports deliveries after 3 s: long enough to see a campaign's page follow its messages
const overrides: Record<string, string> = { SANDBOX_DELIVERY_DELAY_MS: '3000' };
let dnsServer: TestDnsServer | undefined;
beforeAll(async () => {
  dnsServer = await startDnsServer();
  overrides.DNS_SERVERS = dnsServer.address;
});
afterAll(async () => {
  await dnsServer?.close();
});
const suite = dashboardSuite(overrides);
const { server } = suite;
const dns = (): TestDnsServer => {
  if (!dnsServer) throw new Error('the DNS server is not running');
  return dnsServer;
};

const WAIT = { timeout: 30_000 };
const unique = () => randomBytes(4).toString('hex');

interface CampaignRead {
  id: string;
  name: string;
  status: string;
  audience: { segment_id?: string; list_id?: string };
  subject?: string;
  accepted: number;
  skipped: number;
  scheduled_at: string | null;
  cancelled_at?: string | null;
  messages: Record<string, number>;
}
interface DnsRecordRead {
  kind: string;
  type: string;
  name: string;
  value: string;
  status: string;
}
interface EmailDomainRead {
  id: string;
  domain: string;
  status: string;
  records: DnsRecordRead[];
  signing: { verdict: string } | null;
  warmup: { status: string };
}
interface LinkDomainRead {
  id: string;
  domain: string;
  status: string;
  record: { type: string; name: string; value: string };
}

async function api<T>(method: string, path: string, key: string, body?: unknown, status = 200): Promise<T> {
  const res = await server.call(method, path, { key, body });
  expect(res.status, `${method} ${path} → ${JSON.stringify(res.body)}`).toBe(status);
  return res.body as T;
}

/** A segment of `members` new contacts tagged with a tag of its own (and one contact outside it). */
async function segmentOf(acct: TestAccount, members: number): Promise<{ id: string; name: string; emails: string[] }> {
  const tag = `vip-${unique()}`;
  const emails: string[] = [];
  for (let i = 0; i < members; i++) {
    const email = `${tag}-${i}@example.com`;
    await api('POST', '/v1/contacts', acct.key, { email, tags: [tag] }, 201);
    emails.push(email);
  }
  await api('POST', '/v1/contacts', acct.key, { email: `outside-${tag}@example.com` }, 201);
  const name = `VIPs ${tag}`;
  const segment = await api<{ id: string; count: number }>('POST', '/v1/segments', acct.key, { name, rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: tag }] } }, 201);
  expect(segment.count).toBe(members);
  return { id: segment.id, name, emails };
}

/** Fills the dashboard's New campaign form for a segment. */
async function fillCampaignForm(page: Page, name: string, segment: { name: string }, members: number) {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Audience', { exact: true }).selectOption({ label: 'A segment' });
  await page.getByLabel('Segment', { exact: true }).selectOption({ label: `${segment.name} (${members} contacts)` });
  await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'Email' });
  await page.getByLabel('Subject', { exact: true }).fill('Spring is here');
  await page.getByLabel('Message', { exact: true }).fill('Hello from the spring sale');
}

/** The text of the row of the campaign page's Counts table that counts `what`. */
const countRow = (page: Page, what: string) => page.getByRole('table', { name: 'Counts' }).getByRole('row', { name: new RegExp(`^${what} `) });

/** Publishes every record an email domain asks for, as its owner would at their DNS provider. */
function publish(domain: EmailDomainRead) {
  for (const r of domain.records) {
    if (r.type === 'TXT') dns().set(r.name, 'TXT', [r.value]);
    if (r.type === 'CNAME') dns().set(r.name, 'CNAME', [r.value]);
    if (r.type === 'MX') dns().set(r.name, 'MX', [{ exchange: `mx.${r.name}`, priority: 10 }]);
  }
}

describe('the Campaigns pages', () => {
  it('creates a campaign for a segment from the form and follows it on its page until every message is delivered', async () => {
    const acct = await server.newAccount('Campaigns');
    const segment = await segmentOf(acct, 3);
    const page = await signedIn(suite, acct);
    await openFromNavigation(page, 'Campaigns');
    await page.getByRole('heading', { name: 'New campaign' }).waitFor(WAIT);
    await expectAccessible(page, 'the Campaigns page');

    const name = `Spring sale ${unique()}`;
    await fillCampaignForm(page, name, segment, 3);
    await page.getByRole('button', { name: 'Send campaign' }).click();
    await page.getByRole('heading', { level: 1, name: `Campaign ${name}` }).waitFor(WAIT);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect(id).toMatch(/^cmp_/);

    // the page shows progress and refreshes on its own until the send and its messages have settled
    await page.getByRole('progressbar').first().waitFor(WAIT);
    await page.getByText('Status: sent').waitFor(WAIT);
    await expect.poll(() => countRow(page, 'Delivered').textContent(), WAIT).toMatch(/^Delivered3/);
    expect(await countRow(page, 'Accepted').textContent()).toMatch(/^Accepted3/);
    expect(await countRow(page, 'Skipped').textContent()).toMatch(/^Skipped0/);
    expect(await countRow(page, 'Queued').textContent()).toMatch(/^Queued0/);
    await expect.poll(() => page.getByRole('progressbar').count(), WAIT).toBe(0);
    await expect.poll(() => page.getByRole('link', { name: segment.name }).count(), WAIT).toBe(1);
    await expectAccessible(page, 'a sent campaign’s page');

    // what the page showed is what the API holds
    const read = await api<CampaignRead>('GET', `/v1/campaigns/${id}`, acct.key);
    expect(read).toMatchObject({ name, status: 'sent', audience: { segment_id: segment.id }, subject: 'Spring is here', accepted: 3, skipped: 0, scheduled_at: null });
    expect(read.messages).toMatchObject({ delivered: 3, queued: 0, failed: 0 });

    // the list shows it with its status
    await page.getByRole('link', { name: 'All campaigns' }).click();
    const row = page.getByRole('table', { name: 'Campaigns, newest first' }).getByRole('row', { name: new RegExp(name) });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain('sent');
    // the segment named once the account's segments are loaded
    await expect.poll(() => row.textContent(), WAIT).toContain(`Segment ${segment.name}`);
    await page.context().close();
  });

  it('schedules a campaign from the form and cancels it through the dialog', async () => {
    const acct = await server.newAccount('Scheduled campaigns');
    const segment = await segmentOf(acct, 2);
    const page = await signedIn(suite, acct, '/campaigns');
    await page.getByRole('heading', { name: 'New campaign' }).waitFor(WAIT);
    const name = `Later ${unique()}`;
    await fillCampaignForm(page, name, segment, 2);
    await page.getByLabel('Schedule for later').check();
    // the form proposes a day from now; the API wants a future instant
    expect(await page.getByLabel('Send at').inputValue()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    await page.getByRole('button', { name: 'Schedule campaign' }).click();
    await page.getByRole('heading', { level: 1, name: `Campaign ${name}` }).waitFor(WAIT);
    await page.getByText('Status: scheduled').waitFor(WAIT);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const scheduled = await api<CampaignRead>('GET', `/v1/campaigns/${id}`, acct.key);
    expect(scheduled.status).toBe('scheduled');
    const ahead = Date.parse(scheduled.scheduled_at!) - Date.now();
    expect(ahead).toBeGreaterThan(23 * 3600_000);
    expect(ahead).toBeLessThan(25 * 3600_000);

    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel ${name}?` });
    await dialog.waitFor(WAIT);
    await expectAccessible(page, 'the cancel dialog');
    await dialog.getByRole('button', { name: 'Cancel the campaign' }).click();
    await page.getByText('Status: cancelled').waitFor(WAIT);
    await page.getByText('The campaign is cancelled.').waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Cancel campaign' }).count()).toBe(0);

    const read = await api<CampaignRead>('GET', `/v1/campaigns/${id}`, acct.key);
    expect(read.status).toBe('cancelled');
    expect(read.cancelled_at).toEqual(expect.any(String));
    expect(read.accepted).toBe(0);
    await page.context().close();
  });
});

describe('the Domains pages', () => {
  it('adds an email domain, copies its records, verifies it against DNS, checks signing, shows DMARC readiness and warm-up, and deletes it', async () => {
    const acct = await server.newAccount('Email domains');
    const page = await signedIn(suite, acct);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await openFromNavigation(page, 'Domains');
    await page.getByRole('heading', { name: 'Email domains' }).waitFor(WAIT);
    await page.getByRole('heading', { name: 'Link domains' }).waitFor(WAIT);
    await expectAccessible(page, 'the Domains page');

    const name = `mail-${unique()}.dash.test`;
    await page.getByLabel('Email domain', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Add email domain' }).click();
    await page.getByRole('heading', { level: 1, name: `Email domain ${name}` }).waitFor(WAIT);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const added = await api<EmailDomainRead>('GET', `/v1/account/email-domains/${id}`, acct.key);
    expect(added.status).toBe('pending');

    // every record, with a Copy button that puts its value on the clipboard
    const records = page.getByRole('table', { name: 'DNS records to publish' });
    await records.waitFor(WAIT);
    for (const kind of ['SPF', 'DKIM', 'DMARC', 'Return path']) {
      expect(await page.getByRole('button', { name: `Copy the ${kind} record's value` }).count(), kind).toBe(1);
      expect(await page.getByRole('button', { name: `Copy the ${kind} record's host` }).count(), kind).toBe(1);
    }
    const dkim = added.records.find((r) => r.kind === 'dkim')!;
    expect(await records.getByRole('row', { name: /^DKIM \(required\)/ }).textContent()).toContain(dkim.name);
    await page.getByRole('button', { name: "Copy the DKIM record's value" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), WAIT).toBe(dkim.value);
    await expectAccessible(page, 'an email domain’s page');

    // published in DNS, then verified from the page: each check's result shows
    publish(added);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByText(`${name} is verified: every required record passes.`).waitFor(WAIT);
    for (const kind of ['SPF', 'DKIM']) {
      await expect.poll(() => records.getByRole('row', { name: new RegExp(`^${kind} \\(required\\)`) }).textContent(), WAIT).toContain('pass');
    }
    const verified = await api<EmailDomainRead>('GET', `/v1/account/email-domains/${id}`, acct.key);
    expect(verified.status).toBe('verified');
    expect(verified.records.every((r) => r.status === 'pass')).toBe(true);

    // DMARC readiness: verified, but no reports yet, and the two records for p=quarantine
    const readiness = page.getByRole('region', { name: 'DMARC readiness' });
    await readiness.getByText('Not ready for p=quarantine yet.').waitFor(WAIT);
    await expect.poll(() => readiness.getByRole('listitem').filter({ hasText: 'The domain is verified' }).textContent(), WAIT).toMatch(/^pass/);
    expect(await readiness.getByRole('listitem').filter({ hasText: 'Reports cover at least 14 days' }).textContent()).toMatch(/^fail/);
    const quarantine = readiness.getByRole('table', { name: 'Records to publish for p=quarantine' });
    expect(await quarantine.textContent()).toContain(`_dmarc.${name}`);
    expect(await quarantine.textContent()).toContain('v=DMARC1; p=quarantine');
    expect(await page.getByRole('region', { name: 'DMARC reports' }).textContent()).toContain('No DMARC report yet');

    // signing, decided from pasted headers
    const headers = [
      `From: news@${name}`,
      `Authentication-Results: mx.example.net; dkim=pass header.d=${name} header.s=${dkim.name.split('.')[0]}`,
      `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${name}; s=${dkim.name.split('.')[0]}; h=from:to:subject; bh=XHcfShLrWn+yGzIBtw2ovhWHOkluLcmqwna93G2R4H0=; b=v2RZ5vIPVb2GVpZ3+vYXr3`,
    ].join('\n');
    await page.getByLabel('Message headers').fill(headers);
    await page.getByRole('button', { name: 'Check signing' }).click();
    await page.getByText(/^Verdict: pass/).waitFor(WAIT);
    await expect.poll(async () => (await api<EmailDomainRead>('GET', `/v1/account/email-domains/${id}`, acct.key)).signing?.verdict, WAIT).toBe('pass');

    // warm-up
    const warmup = page.getByRole('region', { name: 'Warm-up' });
    await warmup.getByRole('button', { name: 'Start warm-up' }).click();
    await warmup.getByRole('button', { name: 'Pause warm-up' }).waitFor(WAIT);
    expect(await warmup.textContent()).toContain('active');
    expect((await api<EmailDomainRead>('GET', `/v1/account/email-domains/${id}`, acct.key)).warmup.status).toBe('active');

    // deleting asks first
    await page.getByRole('button', { name: 'Delete domain' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
    await dialog.waitFor(WAIT);
    await expectAccessible(page, 'the delete dialog');
    await dialog.getByRole('button', { name: 'Delete the domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor(WAIT);
    expect((await server.call('GET', `/v1/account/email-domains/${id}`, { key: acct.key })).status).toBe(404);
    await page.context().close();
  });

  it('adds a link domain, shows its CNAME, and verifies it once the CNAME is published', async () => {
    const acct = await server.newAccount('Link domains');
    const page = await signedIn(suite, acct, '/domains');
    const name = `links-${unique()}.dash.test`;
    await page.getByLabel('Link domain', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Add link domain' }).click();
    await page.getByText(`${name} is added: publish its CNAME record, then verify it.`).waitFor(WAIT);
    const { data } = await api<{ data: LinkDomainRead[] }>('GET', '/v1/account/link-domains', acct.key);
    const added = data.find((d) => d.domain === name)!;
    expect(added).toMatchObject({ status: 'pending', record: { type: 'CNAME', name } });
    const row = page.getByRole('table', { name: 'Link domains' }).getByRole('row', { name: new RegExp(`^${name.replaceAll('.', '\\.')}`) });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain(added.record.value);
    expect(await row.getByRole('button', { name: `Copy the CNAME target of ${name}` }).count()).toBe(1);

    // not yet published: the check says what it found
    await row.getByRole('button', { name: `Verify ${name}` }).click();
    await page.getByText(new RegExp(`^${name.replaceAll('.', '\\.')} is still pending`)).waitFor(WAIT);

    dns().set(name, 'CNAME', [added.record.value]);
    await row.getByRole('button', { name: `Verify ${name}` }).click();
    await page.getByText(`${name} is verified.`).waitFor(WAIT);
    await expect.poll(() => row.textContent(), WAIT).toContain('verified');
    await expectAccessible(page, 'the Domains page with a link domain');
    const after = await api<{ data: LinkDomainRead[] }>('GET', '/v1/account/link-domains', acct.key);
    expect(after.data.find((d) => d.id === added.id)?.status).toBe('verified');

    await row.getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
    await dialog.waitFor(WAIT);
    await expectAccessible(page, 'the link domain delete dialog');
    await dialog.getByRole('button', { name: 'Delete the link domain' }).click();
    await page.getByText(`${name} is deleted.`).waitFor(WAIT);
    const gone = await api<{ data: LinkDomainRead[] }>('GET', '/v1/account/link-domains', acct.key);
    expect(gone.data.map((d) => d.id)).not.toContain(added.id);
    await page.context().close();
  });
});

describe('a viewer', () => {
  it('sees campaigns and domains with no control that creates, cancels, verifies or deletes', async () => {
    const acct = await server.newAccount('Read only');
    const segment = await segmentOf(acct, 1);
    const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString();
    const campaign = await api<CampaignRead>('POST', '/v1/campaigns', acct.key, { name: 'Viewer sees', audience: { segment_id: segment.id }, channel: 'email', subject: 'Hi', message: 'Hello', scheduled_at: tomorrow }, 201);
    const domainName = `viewer-${unique()}.dash.test`;
    const domain = await api<EmailDomainRead>('POST', '/v1/account/email-domains', acct.key, { domain: domainName }, 201);
    const linkName = `go-${unique()}.dash.test`;
    await api('POST', '/v1/account/link-domains', acct.key, { domain: linkName }, 201);
    const viewer = await userWithRole(server, acct, 'viewer');
    const page = await signedIn(suite, viewer, '/campaigns');

    await page.getByRole('table', { name: 'Campaigns, newest first' }).getByRole('link', { name: 'Viewer sees' }).waitFor(WAIT);
    expect(await page.getByRole('heading', { name: 'New campaign' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Send campaign|Schedule campaign/ }).count()).toBe(0);
    await expectAccessible(page, 'the Campaigns page of a viewer');

    await page.getByRole('link', { name: 'Viewer sees' }).click();
    await page.getByText('Status: scheduled').waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Cancel campaign' }).count()).toBe(0);
    await expectAccessible(page, 'a campaign’s page of a viewer');

    await openFromNavigation(page, 'Domains');
    await page.getByRole('table', { name: 'Link domains' }).getByRole('cell', { name: linkName, exact: true }).waitFor(WAIT);
    await page.getByRole('table', { name: 'Email domains' }).getByRole('link', { name: domainName }).waitFor(WAIT);
    for (const name of ['Add email domain', 'Add link domain', `Verify ${linkName}`, `Delete ${linkName}`, `Delete ${domainName}`]) {
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    }
    await expectAccessible(page, 'the Domains page of a viewer');

    await page.getByRole('link', { name: domainName }).click();
    await page.getByRole('table', { name: 'DNS records to publish' }).waitFor(WAIT);
    await page.getByRole('region', { name: 'DMARC readiness' }).getByText('Not ready for p=quarantine yet.').waitFor(WAIT);
    expect(await page.getByRole('button', { name: "Copy the DKIM record's value" }).count()).toBe(1);
    for (const name of ['Verify', 'Delete domain', 'Check signing', 'Start warm-up', 'Save logo', 'Add report']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await page.getByLabel('Message headers').count()).toBe(0);
    await expectAccessible(page, 'an email domain’s page of a viewer');

    // nothing changed
    expect((await api<CampaignRead>('GET', `/v1/campaigns/${campaign.id}`, acct.key)).status).toBe('scheduled');
    expect((await api<EmailDomainRead>('GET', `/v1/account/email-domains/${domain.id}`, acct.key)).status).toBe('pending');
    await page.context().close();
  });
});
