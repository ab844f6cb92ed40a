// Whether dist/ (`npm run build`) is current: there, and at least as new as every TypeScript source
// the build compiles. Read by bin/engage.js (run the build or the sources) and bin/build.js (`npm start`).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const builtMain = new URL('../dist/src/main.js', import.meta.url);
export const builtMainPath = fileURLToPath(builtMain);

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

export const hasBuild = () => existsSync(builtMainPath);
export const hasSources = () => existsSync(`${root}src/main.ts`);

/** A build that is there and not older than the sources (or with no sources beside it: an image). */
export const buildIsCurrent = () => hasBuild() && (!hasSources() || statSync(builtMainPath).mtimeMs >= newestSource());
