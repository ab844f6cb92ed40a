// CPU-heavy request work (untrusted HTML and XML, the AI helpers' fallbacks) runs off the request
// loop, on threads, with a time limit (README "Security notes"): while one request's input takes long
// to read, /health and every other request are answered; past the limit the input is a 400 naming
// its field, and the next request is served by a new thread.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts.ts';
import { testServerForSuite } from '../support/harness.ts';

const LIMIT_MS = 5_000;
const server = testServerForSuite({ CPU_WORK_TIMEOUT_MS: String(LIMIT_MS), CPU_WORK_THREADS: '1' });
let a: TestAccount;
beforeAll(async () => {
  a = await server.newAccount('Heavy');
});

// 500,000 nested <b>: the HTML parser's formatting-element bookkeeping grows with the depth, so this
// takes minutes to read, however the spam rules are written
const SLOW_HTML = '<b>x'.repeat(500_000);

describe('CPU-heavy work', () => {
  it('is done off the request loop: /health answers while an input is read, which is a 400 past the time limit', async () => {
    let settled = false;
    const heavy = server.call('POST', '/v1/account/spam-check', { key: a.key, body: { subject: 'Deep', html: SLOW_HTML } }).finally(() => {
      settled = true;
    });
    // before the fix the first /health after the body arrived waited for the whole parse
    for (let i = 0; i < 20; i++) {
      const health = await server.call('GET', '/health');
      expect(health.status).toBe(200);
    }
    expect(settled, 'the heavy request was still being read while /health answered').toBe(false);
    const res = await heavy;
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.issues).toEqual([{ path: 'html', message: expect.stringContaining(`more than ${LIMIT_MS / 1000} s`) }]);
  });

  it('serves the next request on a new thread after one was ended', async () => {
    const res = await server.call('POST', '/v1/account/spam-check', { key: a.key, body: { subject: 'Fine', text: 'A short and ordinary note about our opening hours.' } });
    expect(res.status).toBe(200);
    expect(res.body.rating).toEqual(expect.any(String));
    const assist = await server.call('POST', '/v1/account/ai-assist', { key: a.key, body: { action: 'fix', text: `teh${' '.repeat(19_990)}end` } });
    expect(assist.status).toBe(200);
    expect(assist.body).toMatchObject({ action: 'fix', text: 'The end', degraded: true });
  });

  it('refuses a DMARC report with a character reference Postgres cannot store (400, not 500)', async () => {
    const domain = await server.call('POST', '/v1/account/email-domains', { key: a.key, body: { domain: 'heavy.example' } });
    expect(domain.status).toBe(201);
    const xml = `<feedback><report_metadata><org_name>Bad&#xD800;</org_name><report_id>1</report_id><date_range><begin>1719792000</begin><end>1719878399</end></date_range></report_metadata><policy_published><domain>heavy.example</domain><p>none</p></policy_published><record><row><source_ip>192.0.2.1</source_ip><count>1</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row></record></feedback>`;
    const res = await server.call('POST', `/v1/account/email-domains/${domain.body.id}/dmarc`, { key: a.key, body: { xml } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'xml', message: expect.stringContaining('&#xD800; is not a character XML allows') }]);
  });
});
