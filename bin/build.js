#!/usr/bin/env node
// `npm start`'s first step: runs `npm run build` when dist/ (the service, or the dashboard in
// dist/dashboard) is missing or older than its sources, so the service always runs as plain
// JavaScript under plain node, as in production (README "Production":
// the TypeScript loader would cost every isolate, the main thread and each CPU work thread, tens of
// MiB). A current build is left as it is: a start after no edit costs nothing.
import { spawnSync } from 'node:child_process';
import { buildIsCurrent, dashboardIsCurrent, hasBuild, root } from './build-state.js';

if (!buildIsCurrent() || !dashboardIsCurrent()) {
  process.stderr.write(`engage: ${hasBuild() ? 'the sources are newer than dist/' : 'no build yet'}: npm run build …\n`);
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('engage: the build failed (above); `npm run dev` runs the sources through tsx without one\n');
    process.exit(result.status ?? 1);
  }
}
