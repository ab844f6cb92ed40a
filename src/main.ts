// The engage CLI: serve, worker, accounts, keys, projections, streams, replay, senders.
import { Command, InvalidArgumentError } from 'commander';
import { SingleBar } from 'cli-progress';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { ALL_PROJECTIONS, findProjection } from '../projections/index.ts';
import type { Projection } from './read-models/projection.ts';
import { describeHold, readerHold } from './eventstore/reader-hold.ts';
import { accountOfKey, createAccount, issueApiKey, rotateApiKey } from './accounts/service.ts';
import { loadConfig, withoutEmpty } from './config.ts';
import { redactCredentials } from './credentials.ts';
import { type Engage, openEngage } from './context.ts';
import { parsePosition, positionToString, type Position } from './eventstore/port.ts';
import { bootstrapFirstAccount, startServer } from './server.ts';
import { serveProcesses } from './cluster.ts';
import { startWorkers } from './workers/index.ts';
import { warnWhenLinksUnusable } from './suppressions/unsubscribe-links.ts';
import { ensureProjection, requestRebuild, resetCheckpoint } from './read-models/generations.ts';
import { ProjectionRunner } from './read-models/runner.ts';
import { readStatuses } from './read-models/status.ts';
import { dropParked, listParked, retryParked } from './read-models/parked.ts';
import { sleep } from './sleep.ts';
import { reviewSender, type SenderWrite } from './senders/service.ts';
import { applyErasures, ExportedErasure } from './personal-data/erasure.ts';
import { listErasures } from './personal-data/erasures-table.ts';
import { billingCommands } from './billing/cli.ts';
import { aiCommands } from './ai/cli.ts';
import { webhookCommands } from './webhooks/cli.ts';

const program = new Command();
program.name('engage').description('engage: event-sourced customer engagement platform').showHelpAfterError();

// one-shot commands log warnings and worse unless LOG_LEVEL says otherwise (read through the configuration)
const quietLog = () => pino({ level: withoutEmpty(process.env).LOG_LEVEL === undefined ? 'warn' : loadConfig().LOG_LEVEL });

async function withEngage<T>(fn: (engage: Engage) => Promise<T>, runProjections = false): Promise<T> {
  const engage = await openEngage({ log: quietLog(), runProjections });
  try {
    return await fn(engage);
  } finally {
    await engage.close();
  }
}

function out(json: boolean, value: unknown, text: () => string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

const scopesOption = (v: string) => {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of list) if (!['read', 'write', 'settings'].includes(s)) throw new InvalidArgumentError(`unknown scope ${s} (read, write, settings)`);
  return list;
};

const wholeNumberOption = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number, at least 1');
  return n;
};

program
  .command('serve')
  .description('start the HTTP API and the workers (embedded Postgres when DATABASE_URL is unset)')
  .option('-p, --port <port>', 'port to listen on (default $PORT or 3000)', (v) => Number(v))
  .option('--processes <n>', 'API processes; above 1 they share the port, and one more process keeps the read models and runs the workers', wholeNumberOption, 1)
  .action(async (opts: { port?: number; processes: number }) => {
    if (opts.processes > 1) return serveProcesses({ processes: opts.processes, port: opts.port });
    const config = loadConfig();
    const server = await startServer({ config, port: opts.port });
    await bootstrapFirstAccount(server.engage, (l) => process.stdout.write(`${l}\n`));
    server.engage.log.info({ url: server.url, docs: `${server.url}/docs` }, 'engage is listening');
    const shutdown = async () => {
      server.engage.log.info('shutting down');
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });

program
  .command('worker')
  .description('run the projection runner and background workers without the HTTP API')
  .action(async () => {
    // API processes beside it (`engage serve` with the runner elsewhere) follow its checkpoints
    const engage = await openEngage({ runProjections: true, announceCheckpoints: true });
    const workers = await startWorkers(engage);
    warnWhenLinksUnusable(engage);
    engage.log.info('engage worker running');
    const shutdown = async () => {
      await workers.stop();
      await engage.close();
      process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });

const accounts = program.command('accounts').description('manage accounts');
accounts
  .command('create')
  .description('create an account with an owner user and a first API key')
  .requiredOption('--name <name>', 'account name')
  .requiredOption('--email <email>', 'owner email (dashboard login)')
  .requiredOption('--password <password>', 'owner password (at least 8 characters)')
  .option('--json', 'machine-readable output')
  .action(async (opts: { name: string; email: string; password: string; json?: boolean }) => {
    if (opts.password.length < 8) throw new InvalidArgumentError('password must be at least 8 characters');
    await withEngage(async (engage) => {
      const created = await createAccount(engage, opts, { actor: 'cli' });
      const { position: _p, ...shown } = created;
      out(!!opts.json, shown, () =>
        [`account ${created.account_id}`, `user    ${created.user_id}`, `api key ${created.api_key}   (shown once)`].join('\n'),
      );
    });
  });

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description('issue a new API key for an account')
  .requiredOption('--account <id>', 'account id (acct_…)')
  .option('--scopes <list>', 'comma-separated scopes: read,write,settings (default: full access)', scopesOption)
  .option('--name <name>', 'a label for the key')
  .option('--json', 'machine-readable output')
  .action(async (opts: { account: string; scopes?: string[]; name?: string; json?: boolean }) => {
    await withEngage(async (engage) => {
      const issued = await issueApiKey(engage, opts.account, { name: opts.name ?? null, scopes: (opts.scopes as never) ?? null }, { actor: 'cli' });
      out(!!opts.json, { key_id: issued.key_id, api_key: issued.key, scopes: opts.scopes ?? null }, () => `key ${issued.key_id}\napi key ${issued.key}   (shown once)`);
    });
  });
keys
  .command('rotate')
  .description('issue a replacement for a key; the old key keeps working for 24 hours')
  .requiredOption('--key <id>', 'the key id to rotate (key_…)')
  .option('--account <id>', 'account id (looked up from the key when omitted)')
  .option('--json', 'machine-readable output')
  .action(async (opts: { key: string; account?: string; json?: boolean }) => {
    await withEngage(async (engage) => {
      let account = opts.account;
      if (!account) {
        // the key → account lookup reads the auth read model, which no running service may have brought up to date
        await catchUp(engage, ['auth']);
        account = await accountOfKey(engage, opts.key);
      }
      if (!account) throw new InvalidArgumentError(`no key ${opts.key}`);
      const r = await rotateApiKey(engage, account, opts.key, { actor: 'cli' });
      out(!!opts.json, { key_id: r.key_id, api_key: r.key, replaces: opts.key, old_key_expires_at: r.old_key_expires_at }, () =>
        `key ${r.key_id}\napi key ${r.key}   (shown once)\nold key ${opts.key} works until ${r.old_key_expires_at}`,
      );
    });
  });

/** Brings read models up to the head of the log in this process (a CLI command may run with no service running). */
async function catchUp(engage: Engage, names: string[], timeoutMs = 60_000) {
  const ps = names.map((n) => findProjection(n)!);
  const runner = new ProjectionRunner(engage.pool, engage.store, ps, engage.log, engage.store.wakeup);
  await runner.start();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const statuses = (await readStatuses(engage.pool, engage.store, ps)).filter((s) => names.includes(s.name) && s.active);
      if (statuses.length === names.length && statuses.every((s) => s.lag === 0 || s.status === 'failed')) return;
      if (Date.now() > deadline) throw new Error(`the ${names.join(', ')} read model did not catch up within ${timeoutMs / 1000} s`);
      await sleep(50);
    }
  } finally {
    await runner.stop();
  }
}

const projections = program.command('projections').description('read models');
projections
  .command('status')
  .description('position, lag and health of every read model')
  .option('--json', 'machine-readable output')
  .action(async (opts: { json?: boolean }) => {
    await withEngage(async (engage) => {
      const statuses = await readStatuses(engage.pool, engage.store, ALL_PROJECTIONS);
      const hold = await readerHold(engage.store, engage.config.READER_HOLD_WARN_MS);
      // on stderr, so --json output keeps its shape
      if (hold) process.stderr.write(`${describeHold(hold)}\n${hold.warning ? `warning: ${hold.warning}\n` : ''}`);
      out(!!opts.json, statuses, () =>
        statuses
          .map((s) => `${s.name.padEnd(20)} gen ${String(s.generation).padEnd(3)} ${s.status.padEnd(10)} ${s.active ? 'active ' : 'standby'} position ${s.position.padEnd(16)} lag ${s.lag}${s.parked ? `  parked ${s.parked}` : ''}${s.error ? `  error at ${s.error_position}: ${s.error}` : ''}`)
          .join('\n') || 'no projections yet (start the service once)',
      );
      // 2: a read model has stopped; 3: one goes on with events parked (README "Operations")
      if (statuses.some((s) => s.status === 'failed')) process.exitCode = 2;
      else if (statuses.some((s) => s.parked > 0)) process.exitCode = 3;
    });
  });

const projectionArgument = (name: string) => {
  const p = findProjection(name);
  if (!p) throw new InvalidArgumentError(`unknown projection ${name} (${ALL_PROJECTIONS.map((x) => x.name).join(', ')})`);
  return p;
};
const eventIdOption = (v: string) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) throw new InvalidArgumentError('an event id (a uuid, as `engage projections parked` lists it)');
  return v.toLowerCase();
};
const describeParked = (e: { name: string; generation: number; position: string; event_id: string; type: string; stream_id: string; account_id: string | null; attempts: number; error: string }) =>
  `${e.name.padEnd(20)} gen ${String(e.generation).padEnd(3)} ${e.event_id} ${e.type} ${e.stream_id} at ${e.position} account ${e.account_id ?? '-'} attempts ${e.attempts}: ${e.error}`;

projections
  .command('parked [name]')
  .description('events read models could not apply and went on past (parked), oldest first')
  .option('--json', 'machine-readable output')
  .action(async (name: string | undefined, opts: { json?: boolean }) => {
    if (name !== undefined) projectionArgument(name);
    await withEngage(async (engage) => {
      const parked = await listParked(engage.pool, name);
      out(!!opts.json, parked, () => parked.map(describeParked).join('\n') || 'no parked events');
    });
  });
projections
  .command('retry-parked <name>')
  .description("apply a read model's parked events again (once their cause is fixed); those applied are no longer parked")
  .option('--event <id>', 'only this event', eventIdOption)
  .action(async (name: string, opts: { event?: string }) => {
    const p = projectionArgument(name);
    await withEngage(async (engage) => {
      const { applied, failed } = await retryParked(engage.pool, engage.store, p, opts.event);
      for (const e of applied) process.stdout.write(`applied ${e.event_id} (${e.type} ${e.stream_id})\n`);
      for (const e of failed) process.stdout.write(`still parked ${e.event_id} (${e.type} ${e.stream_id}): ${e.error}\n`);
      if (applied.length === 0 && failed.length === 0) process.stdout.write(`no parked events${opts.event ? ` with id ${opts.event}` : ''} for ${name}\n`);
      if (failed.length > 0) process.exitCode = 2;
    });
  });
projections
  .command('drop-parked <name>')
  .description("forget a read model's parked events: they stay in the log, never applied")
  .option('--event <id>', 'only this event', eventIdOption)
  .action(async (name: string, opts: { event?: string }) => {
    projectionArgument(name);
    await withEngage(async (engage) => {
      const dropped = await dropParked(engage.pool, name, opts.event);
      process.stdout.write(`dropped ${dropped} parked event${dropped === 1 ? '' : 's'} of ${name}\n`);
    });
  });
projections
  .command('rebuild [names...]')
  .description('rebuild read models from the start, one after the other; the old tables keep answering until the new ones catch up')
  .option('--all', 'every read model that can be rebuilt')
  .action(async (names: string[], opts: { all?: boolean }) => {
    if (opts.all && names.length) throw new InvalidArgumentError('name read models or give --all, not both');
    if (!opts.all && !names.length) throw new InvalidArgumentError(`name a read model (${ALL_PROJECTIONS.map((x) => x.name).join(', ')}) or give --all`);
    const chosen = opts.all ? ALL_PROJECTIONS.filter((x) => x.rebuildable !== false) : [...new Set(names)].map((name) => {
      const p = findProjection(name);
      if (!p) throw new InvalidArgumentError(`unknown projection ${name} (${ALL_PROJECTIONS.map((x) => x.name).join(', ')})`);
      return p;
    });
    await runToCompletion(chosen, async (engage, p) => {
      // a projection never started has no live generation yet: create it first, or the rebuild would be the only one
      await ensureProjection(engage.pool, p);
      return requestRebuild(engage.pool, p);
    }, 'swapped');
  });

program
  .command('replay')
  .description('re-apply events after a position to a read model')
  .requiredOption('--projection <name>', 'read model name')
  .requiredOption('--from <position>', 'position <commit>/<prepare> (0/0 for the start)', (v) => {
    try {
      return parsePosition(v);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  })
  .action(async (opts: { projection: string; from: Position }) => {
    const p = findProjection(opts.projection);
    if (!p) throw new InvalidArgumentError(`unknown projection ${opts.projection}`);
    await runToCompletion([p], async (engage) => resetCheckpoint(engage.pool, opts.projection, opts.from), 'caught-up');
  });

/**
 * Runs each of these projections in this process, one after the other, until its rebuild swaps in
 * (or it catches up), with a progress bar on a TTY and a line each. One process for all: a read
 * model rebuilt in a process of its own paid the process's start for each. The exit code is the
 * worst of them: 2 for a failed one, 3 for one with events parked.
 */
async function runToCompletion(chosen: Projection[], before: (engage: Engage, p: Projection) => Promise<number | void>, until: 'swapped' | 'caught-up') {
  const engage = await openEngage({ log: quietLog(), projections: chosen });
  try {
    for (const p of chosen) {
      const outcome = await runOne(engage, p, await before(engage, p), until);
      if (outcome === 'failed') process.exitCode = 2;
      else if (outcome === 'parked' && process.exitCode !== 2) process.exitCode = 3;
    }
  } finally {
    await engage.close();
  }
}

/** One projection of runToCompletion: run until done, then its line (stdout) or its failure (stderr). */
async function runOne(engage: Engage, p: Projection, generation: number | void, until: 'swapped' | 'caught-up'): Promise<'ok' | 'failed' | 'parked'> {
  const name = p.name;
  const head = await engage.store.headPosition();
  const total = Number(head.prepare);
  const tty = process.stdout.isTTY;
  const bar = tty ? new SingleBar({ format: `${name} [{bar}] {value}/{total} events | {rate} ev/s | ETA {eta_formatted}`, hideCursor: true }) : undefined;
  const started = Date.now();
  bar?.start(total, 0, { rate: 0 });
  const runner = new ProjectionRunner(engage.pool, engage.store, [p], engage.log, engage.store.wakeup);
  const onProgress = (_n: string, _g: number, at: Position) => {
    const done = Number(at.prepare);
    const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
    bar?.update(Math.min(done, total), { rate });
  };
  runner.on('rebuild-progress', onProgress);
  runner.on('advanced', (_n: string, at: Position) => onProgress(_n, 0, at));
  // Done is read from projection_state, not from this runner's events: a running service works on
  // the same generation and may be the one that swaps it in (or that hits a failing event).
  let rebuildFailure: string | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    const check = setInterval(async () => {
      try {
        if (until === 'swapped') {
          const { rows } = await engage.pool.query<{ active: boolean; status: string; error: string | null; error_position: string | null }>(
            'SELECT active, status, error, error_position FROM projection_state WHERE name = $1 AND generation = $2',
            [name, generation],
          );
          if (rows.length === 0) throw new Error(`the rebuild of ${name} (generation ${generation}) was replaced by another rebuild`);
          if (rows[0].status === 'failed') rebuildFailure = `rebuild of ${name} failed at ${rows[0].error_position}: ${rows[0].error}`;
          else if (!rows[0].active) return;
        } else {
          const [s] = (await readStatuses(engage.pool, engage.store, ALL_PROJECTIONS)).filter((x) => x.name === name && x.active);
          if (!s || (s.lag !== 0 && s.status !== 'failed')) return;
        }
        clearInterval(check);
        resolve();
      } catch (err) {
        clearInterval(check);
        reject(err);
      }
    }, 200);
  });
  await runner.start();
  await finished.finally(() => runner.stop());
  bar?.update(total);
  bar?.stop();
  if (rebuildFailure) {
    process.stderr.write(`${rebuildFailure}\n(the previous generation keeps serving)\n`);
    return 'failed';
  }
  const [s] = (await readStatuses(engage.pool, engage.store, ALL_PROJECTIONS)).filter((x) => x.name === name && x.active);
  const secs = (Date.now() - started) / 1000;
  const parked = s?.parked ? `, ${s.parked} event${s.parked === 1 ? '' : 's'} parked (engage projections parked ${name})` : '';
  process.stdout.write(`${name}: ${s?.status ?? 'unknown'} at ${s?.position ?? '?'}${parked} (${secs.toFixed(1)} s)\n`);
  return s?.status === 'failed' ? 'failed' : s?.parked ? 'parked' : 'ok';
}

const streams = program.command('streams').description('the audit trail');
streams
  .command('show <stream>')
  .description('every event of a stream with position, time, type, actor and data')
  .option('--json', 'machine-readable output')
  .action(async (stream: string, opts: { json?: boolean }) => {
    await withEngage(async (engage) => {
      const events = await engage.store.readStream(stream);
      const rows = events.map((e) => ({
        revision: e.revision.toString(),
        position: positionToString(e.position),
        time: e.createdAt.toISOString(),
        type: e.type,
        actor: e.metadata.actor ?? null,
        request_id: e.metadata.requestId ?? null,
        // events from before credentials left the log carry password/key hashes: never shown
        data: redactCredentials(e.data),
      }));
      out(!!opts.json, rows, () =>
        rows.length === 0
          ? `no events in stream ${stream}`
          : rows.map((r) => `#${r.revision} ${r.position} ${r.time} ${r.type} by ${r.actor ?? '-'}\n    ${JSON.stringify(r.data)}`).join('\n'),
      );
      if (rows.length === 0) process.exitCode = 1;
    });
  });

const erasures = program.command('erasures').description('erasures of personal data (README: Erasure and backups)');
erasures
  .command('export')
  .description('every erasure as JSON lines (ids and address hashes only): keep them apart from database backups')
  .action(async () => {
    await withEngage(async (engage) => {
      for (const r of await listErasures(engage.pool)) {
        const { erasure_id, account_id, kind, contact_id, address_hashes, reason, erased_by } = r;
        process.stdout.write(`${JSON.stringify({ erasure_id, account_id, kind, contact_id, address_hashes, reason, erased_by })}\n`);
      }
    });
  });
erasures
  .command('apply <file>')
  .description('apply exported erasures again, e.g. after restoring a backup older than some of them')
  .action(async (file: string) => {
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const records = lines.map((line, i) => {
      try {
        return ExportedErasure.parse(JSON.parse(line));
      } catch {
        throw new InvalidArgumentError(`${file}:${i + 1} is not an exported erasure`);
      }
    });
    // the read models run here, so that what the erasures blank is blanked before this exits
    await withEngage(async (engage) => {
      const applied = await applyErasures(engage, records);
      await engage.runner.waitFor(['contacts', 'lists', 'messages', 'suppressions', 'webhook_outbox'], await engage.store.headPosition({ includeHeldBack: true }), 60_000);
      process.stdout.write(`${applied} erasure(s) applied\n`);
    }, true);
  });

const senders = program.command('senders').description('review sender registrations (README: Senders and sender rules)');
const reviewed = (opts: { json?: boolean }, r: SenderWrite) =>
  out(!!opts.json, r.sender, () => `sender ${r.sender.id} (${r.sender.sender}, ${r.sender.channel}, ${r.sender.country}) is ${r.sender.status}; verification: ${r.sender.verification.status}`);
senders
  .command('approve <id>')
  .description('approve a pending sender (for a whatsapp number, after the platform review: this is also its proof of ownership)')
  .option('--json', 'machine-readable output')
  .action(async (id: string, opts: { json?: boolean }) => {
    await withEngage(async (engage) => reviewed(opts, await reviewSender(engage, id, { approve: true }, { actor: 'cli' })));
  });
senders
  .command('reject <id>')
  .description('reject a pending sender, with the reason the account sees')
  .requiredOption('--reason <text>', 'why (shown to the account as rejection_reason)')
  .option('--json', 'machine-readable output')
  .action(async (id: string, opts: { reason: string; json?: boolean }) => {
    await withEngage(async (engage) => reviewed(opts, await reviewSender(engage, id, { approve: false, reason: opts.reason }, { actor: 'cli' })));
  });

billingCommands(program.command('billing').description("accounts' plans and prepaid balances (README: Billing)"), withEngage, out);
aiCommands(program.command('ai').description("accounts' AI add-ons, coach and writer (README: AI helpers)"), withEngage, out);
webhookCommands(program.command('webhooks').description('webhook replays (README: Webhook replay)'), withEngage, out);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`engage: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
