// The operator's webhook commands (`engage webhooks replay | replay-status | replay-cancel`, README
// "Webhook replay"): start a replay to an endpoint as the endpoint's account, follow it, cancel it.
// The running service's replay worker does the work; these commands append and read. What they
// need of the service is imported when one runs, so that `engage --help` loads none of it.
import { type Command, InvalidArgumentError } from 'commander';
import type { Engage } from '../context.ts';
import { AppError } from '../errors.ts';
import { sleep } from '../sleep.ts';
import type { ReplayView } from './replays.ts';

type WithEngage = <T>(fn: (engage: Engage) => Promise<T>) => Promise<T>;
type Out = (json: boolean, value: unknown, text: () => string) => void;

const CLI = { actor: 'cli' };
const POLL_MS = 500;

const settled = (r: ReplayView) => r.status === 'completed' || r.status === 'cancelled';
const counts = (r: ReplayView) => `found ${r.found}, delivered ${r.delivered}, failed ${r.failed}, pending ${r.pending}${r.cancelled ? `, cancelled ${r.cancelled}` : ''}`;
const summary = (r: ReplayView) =>
  `replay ${r.id} to ${r.endpoint_id}: ${r.status}${r.cancel_reason ? ` (${r.cancel_reason})` : ''} | ${r.types.join(', ')} from ${r.from} until ${r.until} | ${counts(r)}`;

/** Waits until the replay has completed or been cancelled, drawing a progress bar on a TTY. */
async function follow(engage: Engage, start: ReplayView, accountId: string, tty: boolean): Promise<ReplayView> {
  const { getReplay } = await import('./replays.ts');
  const { SingleBar } = await import('cli-progress');
  let r = start;
  const bar = tty ? new SingleBar({ format: `replay ${r.id} [{bar}] {value}/{total} settled | {status} | {counts}`, hideCursor: true }) : undefined;
  const settledCount = (v: ReplayView) => v.delivered + v.failed + v.cancelled;
  bar?.start(Math.max(1, r.found), settledCount(r), { status: r.status, counts: counts(r) });
  while (!settled(r)) {
    await sleep(POLL_MS);
    try {
      r = await getReplay(engage, accountId, r.endpoint_id, r.id);
    } catch (err) {
      // stored, not yet shown by the service's outbox
      if (!(err instanceof AppError && err.statusCode === 404)) throw err;
    }
    bar?.setTotal(Math.max(1, r.found));
    bar?.update(settledCount(r), { status: r.status, counts: counts(r) });
  }
  bar?.stop();
  return r;
}

async function replayOf(engage: Engage, replayId: string) {
  const { findReplayById } = await import('../../projections/webhook-replays.ts');
  const row = await findReplayById(engage.pool, replayId);
  if (!row) throw new InvalidArgumentError(`webhook replay ${replayId} not found`);
  return row;
}

export function webhookCommands(webhooks: Command, withEngage: WithEngage, out: Out): void {
  webhooks
    .command('replay')
    .description("re-deliver an endpoint's platform events from a window of the log (as the endpoint's account)")
    .requiredOption('--endpoint <id>', 'the webhook endpoint (we_…)')
    .requiredOption('--from <time|position>', 'an RFC 3339 time or a log position <commit>/<prepare>: the first event replayed')
    .option('--until <time|position>', 'the last event replayed (default: the head of the log now)')
    .option('--types <events>', 'platform events, comma-separated (default: all the endpoint subscribes to)', (v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--wait', 'wait until the replay has completed, then print its counts (always so on a terminal)')
    .option('--json', 'machine-readable output (no progress bar)')
    .action(async (opts: { endpoint: string; from: string; until?: string; types?: string[]; wait?: boolean; json?: boolean }) => {
      const [{ accountOfWebhookEndpoint }, { requestReplay }] = await Promise.all([import('../../projections/webhook-endpoints.ts'), import('./replays.ts')]);
      await withEngage(async (engage) => {
        const accountId = await accountOfWebhookEndpoint(engage.pool, opts.endpoint);
        if (!accountId) throw new InvalidArgumentError(`webhook endpoint ${opts.endpoint} not found`);
        const input = { from: opts.from, until: opts.until ?? null, ...(opts.types ? { types: opts.types } : {}) };
        const started = await requestReplay(engage, accountId, opts.endpoint, input, { accountId, ...CLI });
        const tty = !opts.json && !!process.stdout.isTTY;
        if (!tty) out(!!opts.json, started, () => summary(started));
        if (!tty && !opts.wait) return;
        const final = await follow(engage, started, accountId, tty);
        out(!!opts.json, final, () => summary(final));
      });
    });
  webhooks
    .command('replay-status <replayId>')
    .description("a replay's status and counts")
    .option('--json', 'machine-readable output')
    .action(async (replayId: string, opts: { json?: boolean }) => {
      const { getReplay } = await import('./replays.ts');
      await withEngage(async (engage) => {
        const row = await replayOf(engage, replayId);
        const r = await getReplay(engage, row.account_id, row.endpoint_id, replayId);
        out(!!opts.json, r, () => summary(r));
      });
    });
  webhooks
    .command('replay-cancel <replayId>')
    .description('cancel a replay: its deliveries still to be made are cancelled')
    .option('--json', 'machine-readable output')
    .action(async (replayId: string, opts: { json?: boolean }) => {
      const { cancelReplay } = await import('./replays.ts');
      await withEngage(async (engage) => {
        const row = await replayOf(engage, replayId);
        const r = await cancelReplay(engage, row.account_id, row.endpoint_id, replayId, { accountId: row.account_id, ...CLI });
        out(!!opts.json, r, () => summary(r));
      });
    });
}
