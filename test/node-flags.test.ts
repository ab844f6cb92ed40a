// The V8 flags the service runs with (src/node-flags.ts): `npm start` passes each of them, and a
// process the cluster forks gets each one its operator did not choose a value for.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS, withServiceFlags } from '../src/node-flags.ts';

describe('the service node flags', () => {
  it('are passed by npm start, npm run start:prod and the Docker image', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const dockerCmd = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8').split('\n').find((line) => line.startsWith('CMD '))!;
    expect(SERVICE_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of SERVICE_NODE_FLAGS) {
      expect(scripts.start.split(/\s+/)).toContain(flag);
      expect(scripts['start:prod'].split(/\s+/)).toContain(flag);
      expect(JSON.parse(dockerCmd.slice('CMD '.length))).toContain(flag);
    }
  });

  it('are added to a fork’s arguments, after the ones it has', () => {
    expect(withServiceFlags(['--import', 'tsx'], '')).toEqual(['--import', 'tsx', ...SERVICE_NODE_FLAGS]);
  });

  it('leave a value the operator chose, on the command line or in NODE_OPTIONS (either spelling)', () => {
    expect(withServiceFlags(['--max-semi-space-size=8'], '')).toEqual(['--max-semi-space-size=8']);
    expect(withServiceFlags([], '--enable-source-maps --max_semi_space_size=64')).toEqual([]);
    expect(withServiceFlags([], '--enable-source-maps')).toEqual([...SERVICE_NODE_FLAGS]);
  });
});
