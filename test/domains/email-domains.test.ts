// Email sending domains over HTTP: adding one (IDNA, a DKIM key per domain, RSA or Ed25519), the
// records to publish and their live check against a real DNS server on loopback, removal, account
// isolation, the signing verdict, DMARC reports (dedupe, rollup, readiness) and the BIMI record; and
// the cross-tenant signing hole closed: mail is DKIM-signed only with the sending account's own
// verified domain's key (verified cryptographically by a receiver), and a From on a domain another
// account verified is refused at send.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailDomainsProjection, verifiedEmailDomain } from '../../projections/email-domains.ts';
import { accountDkimKeys, SIGNING_KEY_TTL_MS } from '../../src/domains/signing-keys.ts';
import type { TestAccount } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { serverWithDnsAndSmtp } from '../support/mail-suite.ts';
import { rebuildAndWait } from '../support/rebuild.ts';
import { loopbackCertificate, type LoopbackCertificate } from '../support/tls.ts';
import { until } from '../support/waits.ts';

const fixture = (name: string) => readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dmarc', name), 'utf8');
const SPF_INCLUDE = 'spf.sender.test';
const RETURN_PATH_HOST = 'bounces.sender.test';

interface RecordView {
  kind: string;
  type: string;
  name: string;
  value: string;
  required: boolean;
  status: string;
  found: string[];
}
const recordOf = (domain: { records: RecordView[] }, kind: string) => domain.records.find((r) => r.kind === kind)!;

const { server, dns, smtp } = serverWithDnsAndSmtp({ EMAIL_SPF_INCLUDE: SPF_INCLUDE, EMAIL_RETURN_PATH_HOST: RETURN_PATH_HOST, QUIET_HOURS: 'off' });
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  a = await server.newAccount('Acme');
  b = await server.newAccount('Beta');
});

const add = async (key: string, body: Record<string, unknown>) => {
  const res = await server.call('POST', '/v1/account/email-domains', { key, body });
  expect(res.status).toBe(201);
  return res.body;
};
/** Publishes every record the domain asks for, as its owner would in their DNS. */
function publish(domain: { records: RecordView[] }) {
  for (const r of domain.records) {
    if (r.type === 'TXT') dns.set(r.name, 'TXT', [r.value]);
    if (r.type === 'CNAME') dns.set(r.name, 'CNAME', [r.value]);
    if (r.type === 'MX') dns.set(r.name, 'MX', [{ exchange: `mx.${r.name}`, priority: 10 }]);
  }
}
const verify = async (key: string, id: string) => {
  const res = await server.call('POST', `/v1/account/email-domains/${id}/verify`, { key });
  expect(res.status).toBe(200);
  return res.body;
};

describe('adding a domain', () => {
  it('makes an RSA-2048 key and returns the SPF, DKIM, DMARC, return-path and MX records, unchecked', async () => {
    const d = await add(a.key, { domain: 'Mail.Acme-One.test' });
    expect(d).toMatchObject({ id: expect.stringMatching(/^dom_/), domain: 'mail.acme-one.test', status: 'pending', dkim: { algorithm: 'rsa-sha256', selector: expect.stringMatching(/^engage\d{6}-[0-9a-f]{8}$/) } });
    expect(recordOf(d, 'spf')).toMatchObject({ type: 'TXT', name: 'mail.acme-one.test', value: `v=spf1 include:${SPF_INCLUDE} ~all`, required: true, status: 'unchecked' });
    const dkim = recordOf(d, 'dkim');
    expect(dkim).toMatchObject({ type: 'TXT', name: `${d.dkim.selector}._domainkey.mail.acme-one.test`, required: true });
    // an RSA-2048 SubjectPublicKeyInfo is 294 bytes: 392 base64 characters
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{390}[A-Za-z0-9+/=]{2}$/);
    expect(recordOf(d, 'dmarc')).toMatchObject({ name: '_dmarc.mail.acme-one.test', value: 'v=DMARC1; p=none; rua=mailto:dmarc@inbound.engage.local', required: false });
    expect(recordOf(d, 'return_path')).toMatchObject({ type: 'CNAME', name: 'bounces.mail.acme-one.test', value: RETURN_PATH_HOST, required: false });
    expect(recordOf(d, 'mx')).toMatchObject({ type: 'MX', required: false });
    const list = await server.call('GET', '/v1/account/email-domains', { key: a.key });
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(d.id);
  });

  it('takes an internationalised name and keeps it in A-label form, with an Ed25519 key on request (RFC 8463)', async () => {
    const d = await add(a.key, { domain: 'bücher.example', dkim_algorithm: 'ed25519-sha256' });
    expect(d).toMatchObject({ domain: 'xn--bcher-kva.example', unicode_domain: 'bücher.example', dkim: { algorithm: 'ed25519-sha256' } });
    // the bare 32-byte key: 44 base64 characters
    expect(recordOf(d, 'dkim').value).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
  });

  it.each([
    ['', 'domain'],
    ['localhost', 'single label'],
    ['https://acme.test/path', 'scheme'],
    ['10.0.0.1', 'IP address'],
    ['-bad-.test', 'label'],
    [`${'a'.repeat(64)}.test`, 'label'],
    ['acme.123', 'numeric'],
  ])('refuses %j with a 400 naming the domain field (%s)', async (domain) => {
    const res = await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.issues[0].path).toBe('domain');
  });

  it('refuses unknown fields and algorithms', async () => {
    expect((await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain: 'x.test', dkim_algorithm: 'rsa-sha1' } })).status).toBe(400);
    expect((await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain: 'x.test', selector: 's1' } })).status).toBe(400);
  });

  it("another account's domain is a 404 on every route, exactly like a missing one", async () => {
    const d = await add(a.key, { domain: 'private.acme.test' });
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['DELETE', '', undefined],
      ['POST', '/verify', undefined],
      ['POST', '/check-signing', { headers: 'From: a@private.acme.test' }],
      ['PUT', '/bimi', { logo_url: null }],
      ['GET', '/dmarc', undefined],
      ['POST', '/dmarc', { xml: fixture('google.xml') }],
      ['GET', '/dmarc/readiness', undefined],
      ['POST', '/warmup', { action: 'start' }],
    ] as const) {
      const res = await server.call(method, `/v1/account/email-domains/${d.id}${path}`, { key: b.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await server.call('GET', '/v1/account/email-domains', { key: b.key })).body.data).toEqual([]);
    expect((await server.call('GET', '/v1/account/email-domains/dom_00000000000000000000000000', { key: a.key })).status).toBe(404);
    expect((await server.call('GET', '/v1/account/email-domains/not-an-id', { key: a.key })).status).toBe(404);
  });

  it('DELETE removes the domain and its key', async () => {
    const d = await add(a.key, { domain: 'gone.acme.test' });
    expect((await server.call('DELETE', `/v1/account/email-domains/${d.id}`, { key: a.key })).body).toEqual({ id: d.id, deleted: true });
    expect((await server.call('GET', `/v1/account/email-domains/${d.id}`, { key: a.key })).status).toBe(404);
    expect((await server.call('DELETE', `/v1/account/email-domains/${d.id}`, { key: a.key })).status).toBe(404);
  });
});

describe('verifying through live DNS', () => {
  it('fails every record before they are published, passes each once it is, and is verified when the required ones pass', async () => {
    const d = await add(a.key, { domain: 'verify.acme.test' });
    const before = await verify(a.key, d.id);
    expect(before.status).toBe('pending');
    expect(before.records.map((r: RecordView) => r.status)).toEqual(['fail', 'fail', 'fail', 'fail', 'fail']);
    expect(before.checked_at).not.toBeNull();

    // only the DKIM key: still pending, SPF is required too
    dns.set(recordOf(d, 'dkim').name, 'TXT', [recordOf(d, 'dkim').value]);
    const half = await verify(a.key, d.id);
    expect(half).toMatchObject({ status: 'pending' });
    expect(recordOf(half, 'dkim').status).toBe('pass');
    // the 392-character key went out as two DNS strings and was joined back
    expect(recordOf(half, 'dkim').found).toEqual([recordOf(d, 'dkim').value]);

    publish(d);
    const after = await verify(a.key, d.id);
    expect(after.status).toBe('verified');
    expect(after.records.map((r: RecordView) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(after.verified_at).not.toBeNull();
  });

  it('fails SPF that lacks our include or is published twice, and DKIM with another key', async () => {
    const d = await add(a.key, { domain: 'wrong.acme.test' });
    publish(d);
    dns.set(d.domain, 'TXT', ['v=spf1 include:_spf.google.com ~all']);
    dns.set(recordOf(d, 'dkim').name, 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong']);
    let v = await verify(a.key, d.id);
    expect(v.status).toBe('pending');
    expect(recordOf(v, 'spf').status).toBe('fail');
    expect(recordOf(v, 'dkim').status).toBe('fail');
    // RFC 7208 §4.5: two SPF records are a permanent error, even if one is right
    dns.set(d.domain, 'TXT', [recordOf(d, 'spf').value, 'v=spf1 -all']);
    dns.set(recordOf(d, 'dkim').name, 'TXT', [recordOf(d, 'dkim').value]);
    v = await verify(a.key, d.id);
    expect(recordOf(v, 'spf').status).toBe('fail');
    expect(recordOf(v, 'dkim').status).toBe('pass');
  });

  it('a lookup that fails (SERVFAIL) is "unknown", not a missing record, and a verified domain that loses its key is no longer verified', async () => {
    const d = await add(a.key, { domain: 'flaky.acme.test' });
    publish(d);
    expect((await verify(a.key, d.id)).status).toBe('verified');
    dns.fail(recordOf(d, 'dkim').name);
    const v = await verify(a.key, d.id);
    expect(recordOf(v, 'dkim').status).toBe('unknown');
    expect(v.status).toBe('pending');
    dns.remove(recordOf(d, 'dkim').name);
    expect(recordOf(await verify(a.key, d.id), 'dkim').status).toBe('fail');
  });

  it('records every check as an event on the domain stream', async () => {
    const d = await add(a.key, { domain: 'events.acme.test' });
    await verify(a.key, d.id);
    const { rows } = await server.engage.pool.query<{ type: string; data: { records: unknown[]; verified: boolean } }>(
      'SELECT type, data FROM es_events WHERE stream_id = $1 ORDER BY stream_revision',
      [`emaildomain-${d.id}`],
    );
    expect(rows.map((r) => r.type)).toEqual(['EmailDomainAdded', 'EmailDomainDnsChecked']);
    expect(rows[1].data).toMatchObject({ verified: false });
    // the private key is sealed in the log, never in clear
    expect(JSON.stringify(rows[0].data)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(rows[0].data)).toContain('sealed:v1:');
  });
});

describe('DKIM signing belongs to the account that verified the domain', () => {
  const sendFrom = async (key: string, from: string) => {
    const res = await server.call('POST', '/v1/messages/send', { key, body: { channel: 'email', to: 'reader@inbox.test', sender: from, subject: 'Hello', message: 'Hi', transactional: true } });
    expect(res.status).toBe(202);
    const mail = await until(() => smtp.find(res.body.id), (m) => m !== undefined);
    return mail!;
  };
  const resolverFor = (name: string, value: string) => async (n: string, type: string) => {
    if (n === name && type === 'TXT') return [[value]];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };

  for (const algorithm of ['rsa-sha256', 'ed25519-sha256'] as const) {
    it(`signs the owner's mail with its ${algorithm} key; another account sending From that domain is refused (400), even after adding it unverified`, async () => {
      const domain = `${algorithm.slice(0, 3)}-signed.acme.test`;
      const d = await add(a.key, { domain, dkim_algorithm: algorithm });
      publish(d);
      expect((await verify(a.key, d.id)).status).toBe('verified');
      const dkim = recordOf(d, 'dkim');

      const own = await sendFrom(a.key, `news@${domain}`);
      const verified = await dkimVerify(own.raw, { resolver: resolverFor(dkim.name, dkim.value) as never });
      expect(verified.results).toHaveLength(1);
      expect(verified.results[0]).toMatchObject({ signingDomain: domain, selector: d.dkim.selector, algo: algorithm });
      expect(verified.results[0].status.result).toBe('pass');

      // the signer itself answers only the account that verified the domain (defence in depth: every
      // path to a provider asks it with the message's own account)
      const keys = accountDkimKeys(server.engage.pool, server.engage.clock);
      expect((await keys(a.accountId, domain))?.selector).toBe(d.dkim.selector);
      expect(await keys(b.accountId, domain)).toBeUndefined();

      // account B names A's verified domain as its From: refused at send, so nothing leaves with A's key
      const before = smtp.received.length;
      const spoof = await server.call('POST', '/v1/messages/send', { key: b.key, body: { channel: 'email', to: 'reader@inbox.test', sender: `ceo@${domain}`, message: 'Hi', transactional: true } });
      expect(spoof.status).toBe(400);
      expect(spoof.body.issues).toEqual([{ path: 'sender', message: expect.stringContaining(`${domain} is verified by another account`) }]);
      // and adding the same name itself, unverified, does not change that
      await add(b.key, { domain });
      const again = await server.call('POST', '/v1/messages/bulk', { key: b.key, body: { messages: [{ channel: 'email', to: 'reader@inbox.test', sender: `ceo@${domain}`, message: 'Hi' }] } });
      expect(again.body).toMatchObject({ accepted: 0, failed: 1, results: [{ index: 0, error: 'validation_error' }] });
      expect(smtp.received.length).toBe(before);
    });
  }

  it('an unverified domain of the account itself does not sign; once removed, a verified one stops signing', async () => {
    const d = await add(a.key, { domain: 'later.acme.test' });
    expect((await sendFrom(a.key, 'x@later.acme.test')).raw.toString('latin1')).not.toMatch(/^DKIM-Signature:/im);
    publish(d);
    await verify(a.key, d.id);
    expect((await sendFrom(a.key, 'x@later.acme.test')).raw.toString('latin1')).toMatch(/^DKIM-Signature:.*d=later\.acme\.test/ims);
    await server.call('DELETE', `/v1/account/email-domains/${d.id}`, { key: a.key });
    // the signer remembers a key for a few seconds at most
    await until(
      async () => (await sendFrom(a.key, 'x@later.acme.test')).raw.toString('latin1'),
      (raw) => !/^DKIM-Signature:/im.test(raw),
      20_000,
      1000,
    );
  });

  it(`the signer remembers a key found for ${SIGNING_KEY_TTL_MS} ms of the service's clock, and never that there was none`, async () => {
    let now = Date.parse('2026-03-01T10:00:00.000Z');
    const keys = accountDkimKeys(server.engage.pool, { now: () => new Date(now) });
    const d = await add(a.key, { domain: 'remembered.acme.test' });
    // not verified yet: no key, and that is not remembered (mail right after verifying is signed)
    expect(await keys(a.accountId, d.domain)).toBeUndefined();
    publish(d);
    expect((await verify(a.key, d.id)).status).toBe('verified');
    expect((await keys(a.accountId, d.domain))?.selector).toBe(d.dkim.selector);

    expect((await server.call('DELETE', `/v1/account/email-domains/${d.id}`, { key: a.key })).status).toBeLessThan(300);
    await server.caughtUp(['email_domains']);
    expect(await verifiedEmailDomain(server.engage.pool, a.accountId, d.domain)).toBeUndefined();
    // the key found is still what the signer answers, until its time is up on the clock
    now += SIGNING_KEY_TTL_MS;
    expect((await keys(a.accountId, d.domain))?.selector).toBe(d.dkim.selector);
    now += 1;
    expect(await keys(a.accountId, d.domain)).toBeUndefined();
  });
});

describe('check-signing', () => {
  it('records the verdict of pasted headers and answers which signature decided it', async () => {
    const d = await add(a.key, { domain: 'paste.acme.test' });
    const headers = [
      'Authentication-Results: mx.google.com; dkim=pass header.i=@paste.acme.test header.s=s1 header.b=abc',
      'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=paste.acme.test; s=s1;',
      '\th=from:to:subject; bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=; b=dGVzdA==',
      'From: News <news@paste.acme.test>',
      'Subject: hi',
    ].join('\r\n');
    const res = await server.call('POST', `/v1/account/email-domains/${d.id}/check-signing`, { key: a.key, body: { headers } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ verdict: 'pass', decided_by: { source: 'authentication_results', d: 'paste.acme.test', alignment: 'strict', result: 'pass' } });
    const view = (await server.call('GET', `/v1/account/email-domains/${d.id}`, { key: a.key })).body;
    expect(view.signing).toMatchObject({ verdict: 'pass', decided_by: { d: 'paste.acme.test' } });

    const missing = await server.call('POST', `/v1/account/email-domains/${d.id}/check-signing`, { key: a.key, body: { headers: { From: 'a@paste.acme.test', 'DKIM-Signature': 'v=1; a=rsa-sha256; d=esp.test; s=x; h=from; bh=YQ==; b=YQ==' } } });
    expect(missing.body).toMatchObject({ verdict: 'missing', decided_by: null });
    expect((await server.call('POST', `/v1/account/email-domains/${d.id}/check-signing`, { key: a.key, body: { headers: '   ' } })).status).toBe(400);
  });
});

describe('DMARC reports', () => {
  it('stores a report once per reporter and report id, with a rollup per source', async () => {
    const d = await add(a.key, { domain: 'example.com' });
    const first = await server.call('POST', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key, body: { xml: fixture('google.xml') } });
    expect(first.status).toBe(201);
    expect(first.body.duplicate).toBe(false);
    const again = await server.call('POST', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key, body: { xml: fixture('google.xml') } });
    expect(again.status).toBe(200);
    expect(again.body.duplicate).toBe(true);
    expect((await server.call('POST', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key, body: { xml: fixture('dmarcbis.xml') } })).status).toBe(201);

    const overview = (await server.call('GET', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key })).body;
    expect(overview.reports).toHaveLength(2);
    const expected = first.body.report.messages + overview.reports.find((r: { org_name: string }) => r.org_name !== first.body.report.org_name).messages;
    expect(overview.rollup.messages).toBe(expected);
    expect(overview.rollup.reports).toBe(2);
    expect(overview.rollup.sources.reduce((n: number, s: { messages: number }) => n + s.messages, 0)).toBe(expected);
  });

  it('refuses hostile XML, other XML and a report about another domain with a 400 on xml', async () => {
    const d = await add(a.key, { domain: 'dmarc-refusals.test' });
    for (const name of ['xxe.xml', 'billion-laughs.xml', 'not-a-report.xml', 'not-xml.txt', 'google.xml']) {
      const res = await server.call('POST', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key, body: { xml: fixture(name) } });
      expect(res.status, name).toBe(400);
      expect(res.body.issues[0].path).toBe('xml');
    }
  });

  it('readiness: not ready without reports; ready after two clean weeks, with the two records to publish', async () => {
    const d = await add(a.key, { domain: 'ready.acme.test' });
    const not = (await server.call('GET', `/v1/account/email-domains/${d.id}/dmarc/readiness`, { key: a.key })).body;
    expect(not.ready).toBe(false);
    expect(not.criteria.map((c: { name: string; pass: boolean }) => [c.name, c.pass])).toEqual([
      ['dkim_verified', false],
      ['enough_reports', false],
      ['dmarc_pass_rate', false],
      ['every_sender_aligned', false],
    ]);
    expect(not.records).toEqual([
      { type: 'TXT', name: '_dmarc.ready.acme.test', value: 'v=DMARC1; p=quarantine; pct=100; rua=mailto:dmarc@inbound.engage.local; adkim=r; aspf=r' },
      { type: 'TXT', name: 'ready.acme.test._report._dmarc.inbound.engage.local', value: 'v=DMARC1', published_by: 'inbound.engage.local' },
    ]);

    publish(d);
    await verify(a.key, d.id);
    const day = 86_400;
    const start = Math.floor(Date.now() / 1000) - 16 * day;
    const report = (i: number, rows: string) =>
      `<?xml version="1.0"?><feedback><report_metadata><org_name>google.com</org_name><email>noreply-dmarc-support@google.com</email><report_id>r${i}</report_id>` +
      `<date_range><begin>${start + i * day}</begin><end>${start + (i + 1) * day - 1}</end></date_range></report_metadata>` +
      `<policy_published><domain>ready.acme.test</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>${rows}</feedback>`;
    const row = (ip: string, count: number, dkim: string, spf: string) =>
      `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated></row><identifiers><header_from>ready.acme.test</header_from></identifiers><auth_results><dkim><domain>ready.acme.test</domain><result>${dkim}</result></dkim><spf><domain>ready.acme.test</domain><result>${spf}</result></spf></auth_results></record>`;
    // 15 days: one unauthenticated source carrying 5% of the mail holds readiness back
    for (let i = 0; i < 15; i++) {
      const xml = report(i, row('203.0.113.5', 95, 'pass', 'pass') + row('198.51.100.7', 5, 'fail', 'fail'));
      expect((await server.call('POST', `/v1/account/email-domains/${d.id}/dmarc`, { key: a.key, body: { xml } })).status).toBe(201);
    }
    const held = (await server.call('GET', `/v1/account/email-domains/${d.id}/dmarc/readiness`, { key: a.key })).body;
    expect(held.ready).toBe(false);
    expect(held.criteria.find((c: { name: string }) => c.name === 'every_sender_aligned')).toMatchObject({ pass: false, sources: ['198.51.100.7'] });
    expect(held.criteria.find((c: { name: string }) => c.name === 'dmarc_pass_rate').pass).toBe(false);
    expect(held.criteria.find((c: { name: string }) => c.name === 'enough_reports').pass).toBe(true);

    // a second domain where that source was fixed: ready
    const clean = await add(a.key, { domain: 'clean.acme.test' });
    publish(clean);
    await verify(a.key, clean.id);
    for (let i = 0; i < 15; i++) {
      const xml = report(i, row('203.0.113.5', 100, 'pass', 'fail')).replaceAll('ready.acme.test', 'clean.acme.test');
      await server.call('POST', `/v1/account/email-domains/${clean.id}/dmarc`, { key: a.key, body: { xml } });
    }
    const ready = (await server.call('GET', `/v1/account/email-domains/${clean.id}/dmarc/readiness`, { key: a.key })).body;
    expect(ready.criteria.filter((c: { pass: boolean }) => !c.pass)).toEqual([]);
    expect(ready.ready).toBe(true);
  });
});

describe('BIMI', () => {
  const GOOD_LOGO =
    '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Acme</title><circle cx="50" cy="50" r="40" fill="#c00"/></svg>';
  let logos: Server;
  let certificate: LoopbackCertificate;
  let bimiServer: TestServer;
  let origin: string;
  beforeAll(async () => {
    certificate = loopbackCertificate();
    logos = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
      if (req.url === '/logo.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(GOOD_LOGO);
      else if (req.url === '/scripted.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(GOOD_LOGO.replace('<circle', '<script>alert(1)</script><circle'));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => logos.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(logos.address() as AddressInfo).port}`;
    // logos are fetched over https from loopback here: the test's CA trusted, private addresses allowed
    bimiServer = await startTestServer({ OUTBOUND_CA_FILE: certificate.certFile, WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await bimiServer?.close();
    logos?.close();
    certificate?.remove();
  });

  it('sets a logo that is https SVG Tiny PS, answers the BIMI record, and clears it with null', async () => {
    const { key } = await bimiServer.newAccount();
    const d = (await bimiServer.call('POST', '/v1/account/email-domains', { key, body: { domain: 'bimi.acme.test' } })).body;
    const set = await bimiServer.call('PUT', `/v1/account/email-domains/${d.id}/bimi`, { key, body: { logo_url: `${origin}/logo.svg` } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ domain: 'bimi.acme.test', logo_url: `${origin}/logo.svg`, record: { type: 'TXT', name: 'default._bimi.bimi.acme.test', value: `v=BIMI1; l=${origin}/logo.svg; a=;` } });
    expect((await bimiServer.call('GET', `/v1/account/email-domains/${d.id}`, { key })).body.bimi).toEqual({ logo_url: `${origin}/logo.svg`, record: set.body.record });

    const scripted = await bimiServer.call('PUT', `/v1/account/email-domains/${d.id}/bimi`, { key, body: { logo_url: `${origin}/scripted.svg` } });
    expect(scripted.status).toBe(400);
    expect(scripted.body.issues).toEqual([{ path: 'logo_url', message: expect.stringMatching(/^script: /) }]);
    const missing = await bimiServer.call('PUT', `/v1/account/email-domains/${d.id}/bimi`, { key, body: { logo_url: `${origin}/nothing.svg` } });
    expect(missing.status).toBe(400);
    // a refused logo leaves the one set before in place
    expect((await bimiServer.call('GET', `/v1/account/email-domains/${d.id}`, { key })).body.bimi.logo_url).toBe(`${origin}/logo.svg`);

    const cleared = await bimiServer.call('PUT', `/v1/account/email-domains/${d.id}/bimi`, { key, body: { logo_url: null } });
    expect(cleared.body).toMatchObject({ logo_url: null, record: { type: 'TXT', name: 'default._bimi.bimi.acme.test', value: 'v=BIMI1; l=; a=;' } });
    expect((await bimiServer.call('GET', `/v1/account/email-domains/${d.id}`, { key })).body.bimi).toBeNull();
  });

  it('refuses a logo that is not https or, without the development switch, points at a private address', async () => {
    const d = await add(a.key, { domain: 'bimi-refusals.acme.test' });
    for (const logo_url of ['http://bimi.acme.test/logo.svg', 'https://127.0.0.1/logo.svg', 'https://10.1.2.3/logo.svg', 'not a url']) {
      const res = await server.call('PUT', `/v1/account/email-domains/${d.id}/bimi`, { key: a.key, body: { logo_url } });
      expect(res.status, logo_url).toBe(400);
      expect(res.body.issues[0].path).toBe('logo_url');
    }
  });
});

describe('the read model', () => {
  it('a rebuild replays every domain, check, verdict and report to the same rows', async () => {
    const snapshot = async () => {
      const domains = await server.engage.pool.query('SELECT * FROM email_domains ORDER BY id');
      const reports = await server.engage.pool.query('SELECT * FROM email_domain_dmarc_reports ORDER BY domain_id, org_name, report_id');
      return { domains: domains.rows, reports: reports.rows };
    };
    const before = await snapshot();
    expect(before.domains.length).toBeGreaterThan(10);
    expect(before.reports.length).toBeGreaterThan(10);
    expect(before.domains.some((d) => d.status === 'verified')).toBe(true);
    expect(before.domains.some((d) => d.signing !== null)).toBe(true);
    await rebuildAndWait(server, emailDomainsProjection);
    expect(await snapshot()).toEqual(before);
  });
});
