// The V8 flags the service runs with (src/node-flags.ts): `npm start` passes each of them, and a
// process the cluster forks gets each one its operator did not choose a value for.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS, withServiceFlags } from '../src/node-flags.ts';

describe('the service node flags', () => {
  it('are passed by npm start, npm run start:prod, npm run dev and the Docker image', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const dockerCmd = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8').split('\n').find((line) => line.startsWith('CMD '))!;
    expect(SERVICE_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of SERVICE_NODE_FLAGS) {
      expect(scripts.start.split(/\s+/)).toContain(flag);
      expect(scripts['start:prod'].split(/\s+/)).toContain(flag);
      expect(scripts.dev.split(/\s+/)).toContain(flag);
      expect(JSON.parse(dockerCmd.slice('CMD '.length))).toContain(flag);
    }
  });

  it('are added to a fork’s arguments, after the ones it has', () => {
    expect(withServiceFlags(['--import', 'tsx'], '')).toEqual(['--import', 'tsx', ...SERVICE_NODE_FLAGS]);
  });

  it('leave a value the operator chose, on the command line or in NODE_OPTIONS (either spelling)', () => {
    const others = (name: string) => SERVICE_NODE_FLAGS.filter((f) => !f.startsWith(`${name}=`));
    expect(withServiceFlags(['--max-semi-space-size=8'], '')).toEqual(['--max-semi-space-size=8', ...others('--max-semi-space-size')]);
    expect(withServiceFlags([], '--enable-source-maps --max_semi_space_size=64')).toEqual(others('--max-semi-space-size'));
    expect(withServiceFlags(['--heap-growing-percent=50'], '')).toEqual(['--heap-growing-percent=50', ...others('--heap-growing-percent')]);
    expect(withServiceFlags([], '--enable-source-maps')).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('are all flags this node accepts (it refuses one it does not know)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...SERVICE_NODE_FLAGS, '-e', 'process.stdout.write("ok")']);
    expect(stdout).toBe('ok');
  });
});
