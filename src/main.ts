// The engage CLI: serve, worker, accounts, keys, projections, streams, replay, senders.
import { Command, InvalidArgumentError } from 'commander';
import type { Engage } from './context.ts';
import { parsePosition, positionToString, type Position } from './eventstore/port.ts';
import type { Projection } from './read-models/projection.ts';
import type { SenderWrite } from './senders/service.ts';
import { VERSION } from './version.ts';
import { accountCommands } from './accounts/cli.ts';
import { billingCommands } from './billing/cli.ts';
import { aiCommands } from './ai/cli.ts';
import { webhookCommands } from './webhooks/cli.ts';

// What --help and --version need is imported above, and only that: every command imports what it
// runs when it runs (README "The CLI": the CLI answers --help at once).

const program = new Command();
program.name('engage').description('engage: event-sourced customer engagement platform').version(VERSION, '-V, --version', 'print the version').showHelpAfterError();

// one-shot commands log warnings and worse unless LOG_LEVEL says otherwise (read through the configuration)
async function quietLog() {
  const [{ default: pino }, { loadConfig, withoutEmpty }] = await Promise.all([import('pino'), import('./config.ts')]);
  return pino({ level: withoutEmpty(process.env).LOG_LEVEL === undefined ? 'warn' : loadConfig().LOG_LEVEL });
}

async function withEngage<T>(fn: (engage: Engage) => Promise<T>, runProjections = false): Promise<T> {
  const { openEngage } = await import('./context.ts');
  const engage = await openEngage({ log: await quietLog(), runProjections });
  try {
    return await fn(engage);
  } finally {
    await engage.close();
  }
}

function out(json: boolean, value: unknown, text: () => string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

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
    if (opts.processes > 1) {
      const { serveProcesses } = await import('./cluster.ts');
      return serveProcesses({ processes: opts.processes, port: opts.port });
    }
    const [{ loadConfig }, { bootstrapFirstAccount, startServer }] = await Promise.all([import('./config.ts'), import('./server.ts')]);
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
    const [{ openEngage }, { startWorkers }, { warnWhenLinksUnusable }] = await Promise.all([
      import('./context.ts'),
      import('./workers/index.ts'),
      import('./suppressions/unsubscribe-links.ts'),
    ]);
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

accountCommands(program.command('accounts').description('manage accounts'), program.command('keys').description('manage API keys'), withEngage, out);

const projections = program.command('projections').description('read models');
projections
  .command('status')
  .description('position, lag and health of every read model')
  .option('--json', 'machine-readable output')
  .action(async (opts: { json?: boolean }) => {
    const [{ ALL_PROJECTIONS }, { readStatuses }, { describeHold, readerHold }] = await Promise.all([
      import('../projections/index.ts'),
      import('./read-models/status.ts'),
      import('./eventstore/reader-hold.ts'),
    ]);
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

/** The read model of this name; an unknown name is refused with every name there is. */
async function projectionArgument(name: string): Promise<Projection> {
  const { ALL_PROJECTIONS, findProjection } = await import('../projections/index.ts');
  const p = findProjection(name);
  if (!p) throw new InvalidArgumentError(`unknown projection ${name} (${ALL_PROJECTIONS.map((x) => x.name).join(', ')})`);
  return p;
}
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
    if (name !== undefined) await projectionArgument(name);
    const { listParked } = await import('./read-models/parked.ts');
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
    const p = await projectionArgument(name);
    const { retryParked } = await import('./read-models/parked.ts');
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
    await projectionArgument(name);
    const { dropParked } = await import('./read-models/parked.ts');
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
    const { ALL_PROJECTIONS } = await import('../projections/index.ts');
    if (opts.all && names.length) throw new InvalidArgumentError('name read models or give --all, not both');
    if (!opts.all && !names.length) throw new InvalidArgumentError(`name a read model (${ALL_PROJECTIONS.map((x) => x.name).join(', ')}) or give --all`);
    const chosen = opts.all ? ALL_PROJECTIONS.filter((x) => x.rebuildable !== false) : await Promise.all([...new Set(names)].map(projectionArgument));
    const [{ runToCompletion }, { ensureProjection, requestRebuild }] = await Promise.all([import('./read-models/run-to-completion.ts'), import('./read-models/generations.ts')]);
    await runToCompletion(chosen, await quietLog(), async (engage, p) => {
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
    const { findProjection } = await import('../projections/index.ts');
    const p = findProjection(opts.projection);
    if (!p) throw new InvalidArgumentError(`unknown projection ${opts.projection}`);
    const [{ runToCompletion }, { resetCheckpoint }] = await Promise.all([import('./read-models/run-to-completion.ts'), import('./read-models/generations.ts')]);
    await runToCompletion([p], await quietLog(), async (engage) => resetCheckpoint(engage.pool, opts.projection, opts.from), 'caught-up');
  });

const streams = program.command('streams').description('the audit trail');
streams
  .command('show <stream>')
  .description('every event of a stream with position, time, type, actor and data')
  .option('--json', 'machine-readable output')
  .action(async (stream: string, opts: { json?: boolean }) => {
    const { redactCredentials } = await import('./credentials.ts');
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

const log = program.command('log').description('the event log: partitions, archive (README: The log at scale)');
log
  .command('partitions')
  .description("the log's partitions: range, events, size, and where each archived one lies")
  .option('--json', 'machine-readable output')
  .action(async (opts: { json?: boolean }) => {
    await withEngage(async (engage) => {
      const { rows } = await engage.pool.query<{ name: string; from_position: string; to_position: string; archived_at: Date | null; archive_file: string | null; events: string | null; bytes: string | null }>(
        `SELECT p.name, p.from_position::text, p.to_position::text, p.archived_at, p.archive_file, p.events::text,
                coalesce(p.bytes, pg_total_relation_size(to_regclass(p.name)))::text AS bytes
           FROM es_partitions p ORDER BY p.from_position`,
      );
      out(!!opts.json, rows, () =>
        rows
          .map((r) => `${r.name}  [${r.from_position}, ${r.to_position})  ${r.archived_at ? `archived ${r.archived_at.toISOString()} to ${r.archive_file} (${r.events} events, ${r.bytes} bytes)` : `live, ${r.bytes} bytes`}`)
          .join('\n'),
      );
    });
  });
log
  .command('archive')
  .description('write closed partitions older than --before to files in --to (gzip JSON lines, manifest.json), then detach and drop them (S3 settings: LOG_ARCHIVE_S3_*)')
  .requiredOption('--before <time|position>', 'an ISO time, or a global position (the number after the slash of commit/prepare)')
  .requiredOption('--to <dir|s3://bucket/prefix>', 'the archive: a directory, or a prefix of an S3-compatible bucket')
  .option('--json', 'machine-readable output')
  .action(async (opts: { before: string; to: string; json?: boolean }) => {
    const before = /^\d+$/.test(opts.before) ? BigInt(opts.before) : /^\d+\/\d+$/.test(opts.before) ? parsePosition(opts.before).prepare : new Date(opts.before);
    if (before instanceof Date && Number.isNaN(before.getTime())) throw new InvalidArgumentError('--before: an ISO time or a position');
    const { archiveLog } = await import('./eventstore/archive.ts');
    await withEngage(async (engage) => {
      const outcome = await archiveLog(engage.pool, { before, to: opts.to, storage: engage.archive });
      out(!!opts.json, outcome, () =>
        [
          ...outcome.archived.map((a) => `archived ${a.name}: ${a.events} events, ${a.bytes} bytes, sha256 ${a.sha256} → ${a.file}`),
          outcome.stoppedAt ? `stopped at ${outcome.stoppedAt.name}: ${outcome.stoppedAt.reason}` : 'no partition left to archive',
        ].join('\n'),
      );
    });
  });
log
  .command('verify')
  .description("check every file of an archive against its manifest (SHA-256, size, events, order); exit code 1 on any problem")
  .requiredOption('--dir <dir|s3://bucket/prefix>', 'the archive: a directory, or a prefix of an S3-compatible bucket')
  .option('--json', 'machine-readable output')
  .action(async (opts: { dir: string; json?: boolean }) => {
    const { verifyArchive } = await import('./eventstore/archive.ts');
    const { archiveStorage } = await import('./context.ts');
    const { loadConfig } = await import('./config.ts');
    const storage = archiveStorage(loadConfig());
    const results = await verifyArchive(storage, opts.dir).finally(() => storage.close());
    out(!!opts.json, results, () => results.map((r) => `${r.ok ? 'ok' : 'BAD'}  ${r.name}  ${r.file}${r.problems.length ? `\n    ${r.problems.join('\n    ')}` : ''}`).join('\n'));
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  });

const erasures = program.command('erasures').description('erasures of personal data (README: Erasure and backups)');
erasures
  .command('export')
  .description('every erasure as JSON lines (ids and address hashes only): keep them apart from database backups')
  .action(async () => {
    const { listErasures } = await import('./personal-data/erasures-table.ts');
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
    const [{ readFileSync }, { applyErasures, ExportedErasure }] = await Promise.all([import('node:fs'), import('./personal-data/erasure.ts')]);
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
    const { reviewSender } = await import('./senders/service.ts');
    await withEngage(async (engage) => reviewed(opts, await reviewSender(engage, id, { approve: true }, { actor: 'cli' })));
  });
senders
  .command('reject <id>')
  .description('reject a pending sender, with the reason the account sees')
  .requiredOption('--reason <text>', 'why (shown to the account as rejection_reason)')
  .option('--json', 'machine-readable output')
  .action(async (id: string, opts: { reason: string; json?: boolean }) => {
    const { reviewSender } = await import('./senders/service.ts');
    await withEngage(async (engage) => reviewed(opts, await reviewSender(engage, id, { approve: false, reason: opts.reason }, { actor: 'cli' })));
  });

billingCommands(program.command('billing').description("accounts' plans and prepaid balances (README: Billing)"), withEngage, out);
aiCommands(program.command('ai').description("accounts' AI add-ons, coach and writer (README: AI helpers)"), withEngage, out);
webhookCommands(program.command('webhooks').description('webhook replays (README: Webhook replay)'), withEngage, out);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`engage: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
