// Campaign: POST /v1/campaigns to a segment of 100,000 contacts (rule: tag has "bench") → every
// message accepted (the campaign shows `sent`, campaign.sent is emitted), through one engage process
// with its workers on. The contacts are seeded straight into the contacts read-model table (the
// campaign sender reads only the read models; seeding 100,000 contacts through the API would take
// minutes and measure nothing of a campaign); the segment is created through the API. Baseline, same run and server: the same 100,000 messages through
// POST /v1/messages/bulk in bulks of 10,000, one after another, request → last 202. With BENCH_PG_STATS=1
// it prints the statements from the campaign's request to `sent`.
import { Pool } from 'undici';
import { startEngage, type ServerChild } from '../lib/child.ts';
import { type BenchDatabase, freshDatabase, resetStatementStats, statementsOf } from '../lib/db.ts';
import { figure, type Figure } from '../lib/report.ts';
import { type BenchContext, type Scenario, scaled } from '../lib/scenario.ts';
import { now, progress, sleep } from '../lib/stats.ts';
import { drained, recipient } from './messaging.ts';

const BULK = 10_000;

async function api(http: Pool, key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await http.request({
    method, path, headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * `n` contacts with phones recipient(0…n-1), tagged "bench", straight into the contacts read model;
 * each with a first name and a custom field `plan` (what the personalised campaign's template reads).
 */
async function seedAudience(db: BenchDatabase, accountId: string, n: number): Promise<void> {
  const t = now();
  await db.pool.query(
    `INSERT INTO contacts (id, account_id, phone, first_name, tags, custom_fields, created_at, updated_at)
     SELECT 'ct_' || lpad(i::text, 26, '0'), $1, '+1415' || (200 + i / 10000)::text || lpad((i % 10000)::text, 4, '0'),
            'Member' || i, ARRAY['bench'], jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + i % 3]), now(), now()
     FROM generate_series(0, $2::int - 1) AS i`,
    [accountId, n],
  );
  await db.pool.query('ANALYZE contacts');
  const check = await db.pool.query<{ phone: string }>("SELECT phone FROM contacts WHERE id = 'ct_' || lpad('12345', 26, '0')");
  if (n > 12345 && check.rows[0]?.phone !== recipient(12345)) throw new Error('seeded phones differ from the bulk baseline recipients');
  progress(`campaign: seeded ${n.toLocaleString('en-US')} contacts in ${Math.round(now() - t)} ms`);
}

const FIXED_BODY = { message: 'Spring sale: 20% off today. Reply STOP to opt out.' };

/** POSTs the campaign (`content`: its message, or its template), then polls until it is sent; returns ms from request to `sent`. */
async function timeCampaign(http: Pool, key: string, audience: Record<string, string>, n: number, content: Record<string, unknown> = FIXED_BODY) {
  const t0 = now();
  const created = await api(http, key, 'POST', '/v1/campaigns', { name: 'Bench campaign', audience, channel: 'sms', ...content });
  const answeredMs = now() - t0;
  // polled through the list, which shows a campaign's status without counting its messages by
  // status as GET /v1/campaigns/:id does (a count over the campaign's messages: every 25 ms, 9% of
  // the database's statement time while 100,000 were sent)
  for (;;) {
    const listed = (await api(http, key, 'GET', '/v1/campaigns')).data as { id: string; status: string; accepted: number; failure_reason: string | null }[];
    const c = listed.find((l) => l.id === created.id);
    if (c?.status === 'sent') {
      const ms = now() - t0;
      if (c.accepted !== n) throw new Error(`campaign accepted ${c.accepted} of ${n}`);
      return { ms, answeredMs, id: created.id as string };
    }
    if (c?.status === 'failed') throw new Error(`campaign failed: ${c.failure_reason}`);
    if (now() - t0 > 300_000) throw new Error('campaign not sent within 300 s');
    await sleep(25);
  }
}

/**
 * A fresh database and engage process whose account has `n` contacts in a segment (tag "bench"):
 * `work` runs with them; the process is stopped and the database dropped after.
 */
async function withAudience<T>(ctx: BenchContext, dbName: string, n: number, work: (a: { http: Pool; key: string; segmentId: string; db: BenchDatabase }) => Promise<T>): Promise<T> {
  const db = await freshDatabase(ctx.cluster, dbName, 2);
  let engage: ServerChild | undefined;
  try {
    engage = await startEngage(db.url);
    const { url, key, account_id } = engage.info;
    const http = new Pool(url, { connections: 4, headersTimeout: 300_000, bodyTimeout: 300_000 });
    try {
      await seedAudience(db, account_id!, n);
      const segment = await api(http, key!, 'POST', '/v1/segments', { name: 'Bench audience', rules: { match: 'all', rules: [{ field: 'tag', operator: 'has', value: 'bench' }] } });
      if (segment.count !== n) throw new Error(`the segment counts ${segment.count}, not ${n}`);
      return await work({ http, key: key!, segmentId: segment.id, db });
    } finally {
      await http.close();
    }
  } finally {
    await engage?.stop();
    await db.drop();
  }
}

export const campaignScenario: Scenario = {
  name: 'campaign',
  description: 'POST /v1/campaigns to a 100,000-member segment → every message accepted (status sent)',
  async run(ctx): Promise<Figure[]> {
    const n = scaled(ctx, 100_000, 1_000);
    return withAudience(ctx, 'campaign', n, async ({ http, key, segmentId, db }) => {
      // BENCH_PG_STATS=1: the statements from the request to `sent` (the read models following its messages included)
      await resetStatementStats(db);
      const campaign = await timeCampaign(http, key, { segment_id: segmentId }, n);
      progress(`campaign: ${n.toLocaleString('en-US')} accepted in ${Math.round(campaign.ms)} ms (POST answered in ${Math.round(campaign.answeredMs)} ms)`);
      const statements = await statementsOf(db);
      await drained(db, 600_000);

      // baseline: the same recipients through the bulk path
      const t0 = now();
      for (let from = 0; from < n; from += BULK) {
        const size = Math.min(BULK, n - from);
        const body = { messages: Array.from({ length: size }, (_, k) => ({ to: recipient(from + k), channel: 'sms', ...FIXED_BODY })) };
        const out = await api(http, key, 'POST', '/v1/messages/bulk', body);
        if (out.accepted !== size) throw new Error(`bulk accepted ${out.accepted} of ${size}`);
      }
      const bulkMs = now() - t0;
      progress(`campaign baseline: ${n.toLocaleString('en-US')} through bulk in ${Math.round(bulkMs)} ms`);
      return [
        figure({
          scenario: 'campaign', name: `campaign to a ${n.toLocaleString('en-US')}-member segment, request → all accepted`, unit: 'ms', better: 'lower',
          value: Math.round(campaign.ms), target: { op: '<=', value: 10_000 }, baseline: { name: `POST /v1/messages/bulk ×${Math.ceil(n / BULK)}`, value: Math.round(bulkMs) },
          details: { members: n, post_answered_ms: Math.round(campaign.answeredMs), ...statements },
        }),
      ];
    });
  },
};

/** The personalised campaign's template: the member's first name and custom field, and the campaign's data. */
const PERSONALISED = {
  name: 'Bench personalised',
  channel: 'sms',
  text: 'Hi {{ contact.first_name | default: "there" }}, your {{ contact.custom.plan | upcase }} plan gets {{ data.discount }} off today. Reply STOP to opt out.',
};

/**
 * Templates (issue 31): the same 100,000-member campaign with a template that reads each member's
 * first name and custom field, beside the fixed-body campaign in the same run (fixed first, each
 * drained before the next). Target: within 10% of the fixed one.
 */
export const campaignPersonalised: Scenario = {
  name: 'campaign-personalised',
  description: 'A 100,000-member campaign whose template renders each member’s name and custom field, beside the same campaign with a fixed body',
  async run(ctx): Promise<Figure[]> {
    const n = scaled(ctx, 100_000, 1_000);
    return withAudience(ctx, 'campaign_personalised', n, async ({ http, key, segmentId, db }) => {
      const template = await api(http, key, 'POST', '/v1/templates', PERSONALISED);
      const fixed = await timeCampaign(http, key, { segment_id: segmentId }, n);
      progress(`campaign-personalised: fixed body, ${n.toLocaleString('en-US')} accepted in ${Math.round(fixed.ms)} ms`);
      await drained(db, 600_000);
      const personalised = await timeCampaign(http, key, { segment_id: segmentId }, n, { template_id: template.id, data: { discount: '20%' } });
      progress(`campaign-personalised: template, ${n.toLocaleString('en-US')} accepted in ${Math.round(personalised.ms)} ms`);
      await drained(db, 600_000);
      // what the members received: each its own name (the messages read model shows the content)
      const sample = await db.pool.query<{ n: string }>("SELECT count(*)::text AS n FROM messages WHERE campaign_id = $1 AND message LIKE 'Hi Member%'", [personalised.id]);
      return [
        figure({
          scenario: 'campaign-personalised', name: `campaign to a ${n.toLocaleString('en-US')}-member segment with a personalised template, request → all accepted`, unit: 'ms', better: 'lower',
          value: Math.round(personalised.ms), target: { op: '<=', value: 10_000, maxRatio: 1.1 },
          baseline: { name: 'the same campaign with a fixed body, same run', value: Math.round(fixed.ms) },
          details: { members: n, fixed_post_answered_ms: Math.round(fixed.answeredMs), personalised_post_answered_ms: Math.round(personalised.answeredMs), messages_rendered_with_a_name: Number(sample.rows[0]?.n) },
        }),
      ];
    });
  },
};
