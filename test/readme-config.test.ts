// README "Configuration" lists every setting the service reads, and only those: its table's names
// against the configuration schema's keys, in both directions, the defaults it states against the
// ones the schema gives, and no variable read from the environment outside the configuration that
// is neither a setting nor one the README names as not one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTING_NAMES } from '../src/config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The text of a README section: from its `## ` heading to the next heading of that level. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

interface Row {
  names: string[];
  defaults: string;
}

/** The rows of the Configuration section's table of settings (after its header and separator lines). */
function configurationRows(): Row[] {
  const lines = section('Configuration').split('\n').filter((l) => l.startsWith('|'));
  expect(lines[0]).toMatch(/^\| variable \| default \| meaning \|$/);
  expect(lines[1]).toMatch(/^\|[-| ]+\|$/);
  return lines.slice(2).map((line) => {
    const cells = line.split(' | ');
    const names = [...cells[0].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
    return { names, defaults: cells[1] };
  });
}

/**
 * A default as the table writes it, when it is one value the schema's default can be compared with;
 * `word`: a bare word, which may be a value (info, global) or a description (picked, generated).
 */
function statedDefault(text: string): { value: unknown; word?: true } | undefined {
  const t = text.trim();
  if (t === 'unset') return { value: undefined };
  if (/^\d+$/.test(t)) return { value: Number(t) };
  if (t === 'true' || t === 'false') return { value: t === 'true' };
  const quoted = /^`([^`<>]+)`$/.exec(t)?.[1];
  if (quoted !== undefined) return { value: quoted };
  return /^[a-z]+$/.test(t) ? { value: t, word: true } : undefined;
}

describe('README "Configuration"', () => {
  const rows = configurationRows();
  const listed = rows.flatMap((r) => r.names);

  it('names every setting of the configuration schema', () => {
    expect(SETTING_NAMES.length).toBeGreaterThan(60);
    expect(SETTING_NAMES.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('names nothing the configuration does not read, and each setting once', () => {
    expect(listed.filter((name) => !SETTING_NAMES.includes(name))).toEqual([]);
    expect(listed.filter((name, i) => listed.indexOf(name) !== i)).toEqual([]);
    for (const row of rows) expect(row.names.length, JSON.stringify(row)).toBeGreaterThan(0);
  });

  it('states the defaults the configuration gives', () => {
    const defaults = loadConfig({}) as unknown as Record<string, unknown>;
    let compared = 0;
    for (const row of rows) {
      const parts = row.defaults.split(/,\s+/);
      if (parts.length !== row.names.length) continue;
      row.names.forEach((name, i) => {
        const stated = statedDefault(parts[i]);
        if (!stated) return;
        const actual = defaults[name];
        // a value the schema turns into something else (a list of delays, a window) is not compared
        if (actual !== undefined && typeof actual === 'object') return;
        if (stated.word && typeof actual !== 'string') return;
        expect(actual, `${name}: the README says ${parts[i]}`).toEqual(stated.value);
        compared++;
      });
    }
    expect(compared).toBeGreaterThan(40);
  });
});

/** Every .ts and .js file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|js)$/.test(entry) ? [full] : [];
  });
}

describe('the environment is read through the configuration', () => {
  // variables read outside src/config.ts that are not settings: Node's and npm's own, and the two
  // `engage serve --processes N` sets for its children (README "Configuration" says so)
  const NOT_SETTINGS = ['NODE_OPTIONS', 'npm_execpath', 'ENGAGE_CLUSTER_ROLE', 'ENGAGE_CLUSTER_PORT'];

  it('reads no variable outside src/config.ts that is neither a setting nor named as not one', () => {
    const read = new Map<string, string>();
    for (const dir of ['src', 'commands', 'projections', 'bin']) {
      for (const file of sourceFiles(path.join(ROOT, dir))) {
        if (file === path.join(ROOT, 'src/config.ts')) continue;
        const text = readFileSync(file, 'utf8');
        const constants = new Map([...text.matchAll(/const ([A-Z_]+) = '([A-Za-z_]+)'/g)].map((m) => [m[1], m[2]]));
        for (const m of text.matchAll(/process\.env(?:\)|\b)(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[([A-Za-z_]+)\])/g)) {
          const name = m[1] ?? constants.get(m[2]) ?? `[${m[2]}]`;
          read.set(name, path.relative(ROOT, file));
        }
      }
    }
    expect(read.size).toBeGreaterThan(0);
    const unknown = [...read].filter(([name]) => !SETTING_NAMES.includes(name) && !NOT_SETTINGS.includes(name));
    expect(unknown).toEqual([]);
    const configuration = section('Configuration');
    for (const name of NOT_SETTINGS.filter((n) => n.startsWith('ENGAGE_'))) expect(configuration).toContain(`\`${name}\``);
  });
});
