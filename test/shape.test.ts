// The shape of the code (README "Where things live"): dependencies point one way, so no module
// imports one that imports it back, however long the way round (madge reads the imports of every
// source file as TypeScript, with their explicit `.ts` extensions, resolved by tsconfig.json); and
// every decider in commands/ has its given/when/then spec in test/commands/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Decider } from '../src/decider.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'projections', 'commands'];

describe('the import graph of src, projections and commands', () => {
  let graph: madge.MadgeInstance;

  beforeAll(async () => {
    graph = await madge(SOURCES.map((dir) => path.join(ROOT, dir)), {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      // as an object: given a path, madge would parse it with the project's TypeScript (7, no JS API);
      // its resolver converts the options with the TypeScript it brings (package.json "overrides")
      tsConfig: JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')),
      // a type-only import ties modules together as much as any other
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
  }, 120_000);

  it('resolves every relative import to a file it read', () => {
    const imports = graph.obj();
    // the graph is the real one: every module is in it, each with what it imports
    expect(imports['src/schema.ts']).toEqual(expect.arrayContaining(['src/db/migrations.ts', 'src/eventstore/postgres.ts']));
    expect(imports['src/main.ts'].length).toBeGreaterThan(20);
    expect(graph.warnings().skipped).toEqual([]);
  });

  it('has no circular imports', () => {
    expect(graph.circular()).toEqual([]);
  });
});

/** Whether a module's export is a decider: its initial state, evolve and decide. */
const isDecider = (value: unknown): value is Decider<unknown, unknown, never> =>
  typeof value === 'object' && value !== null && 'initialState' in value && typeof (value as Decider<unknown, unknown, never>).evolve === 'function' && typeof (value as Decider<unknown, unknown, never>).decide === 'function';

describe('the deciders in commands/', () => {
  it('each has a given/when/then spec at its mirrored path in test/commands/', async () => {
    const modules = (readdirSync(path.join(ROOT, 'commands'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const deciders: { module: string; name: string }[] = [];
    for (const module of modules) {
      const exported: Record<string, unknown> = await import(path.join(ROOT, 'commands', module));
      for (const [name, value] of Object.entries(exported)) if (isDecider(value)) deciders.push({ module, name });
    }
    // the listing is real: the deciders every area writes with are among them
    expect(deciders).toEqual(expect.arrayContaining([{ module: 'message.ts', name: 'messageDecider' }, { module: 'contact.ts', name: 'contactDecider' }]));
    const missing = deciders.filter(({ module, name }) => {
      const spec = path.join(ROOT, 'test', 'commands', module.replace(/\.ts$/, '.test.ts'));
      return !existsSync(spec) || !readFileSync(spec, 'utf8').includes(`DeciderSpecification.for(${name})`);
    });
    expect(missing, 'deciders without a spec (test/commands/<module>.test.ts using DeciderSpecification.for(<decider>))').toEqual([]);
  });
});
