#!/usr/bin/env node
// The engage CLI entry. Runs the built JavaScript (dist/, `npm run build`) with plain node when it is
// there and current; otherwise (a fresh clone, or sources edited since the last build) runs the
// TypeScript sources through tsx's loader, so `npx engage` works without a build.
import { buildIsCurrent, builtMain, builtMainPath, hasBuild, hasSources } from './build-state.js';

async function runSources() {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}

if (buildIsCurrent()) {
  await import(builtMain.href);
} else if (hasSources()) {
  try {
    await runSources();
  } catch (err) {
    // tsx is a dev dependency: without it (npm ci --omit=dev) an older build is better than nothing
    if (hasBuild() && err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes("'tsx'")) await import(builtMain.href);
    else throw err;
  }
} else {
  throw new Error(`engage: neither ${builtMainPath} nor the TypeScript sources are here; run npm run build`);
}
