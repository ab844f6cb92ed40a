// The shape of the code (README "Layout"): dependencies point one way, so no module imports one that
// imports it back, however long the way round. madge reads the imports of every source file as
// TypeScript (with their explicit `.ts` extensions, resolved by tsconfig.json).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

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
