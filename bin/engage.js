#!/usr/bin/env node
// The engage CLI entry. Runs the built JavaScript (dist/, `npm run build`) with plain node when it is
// there and current; otherwise (a fresh clone, or sources edited since the last build) runs the
// TypeScript sources through tsx's loader, so `npx engage` works without a build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = new URL('../dist/src/main.js', import.meta.url);

/** The newest modification time of the .ts files under the folders the build compiles (0: none). */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const file = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(file);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(file).mtimeMs);
    }
  };
  for (const dir of ['src', 'commands', 'projections']) walk(`${root}${dir}`);
  return newest;
}

async function runSources() {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}

const builtPath = fileURLToPath(built);
const hasBuild = existsSync(builtPath);
const hasSources = existsSync(`${root}src/main.ts`);
if (hasBuild && (!hasSources || statSync(builtPath).mtimeMs >= newestSource())) {
  await import(built.href);
} else if (hasSources) {
  try {
    await runSources();
  } catch (err) {
    // tsx is a dev dependency: without it (npm ci --omit=dev) an older build is better than nothing
    if (hasBuild && err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes("'tsx'")) await import(built.href);
    else throw err;
  }
} else {
  throw new Error(`engage: neither ${builtPath} nor the TypeScript sources are here; run npm run build`);
}
