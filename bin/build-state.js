// Whether dist/ (`npm run build`) is current: there, and at least as new as every source the build
// compiles (the service's TypeScript; the dashboard's sources, built to dist/dashboard). Read by
// bin/engage.js (run the build or the sources) and bin/build.js (`npm start`).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const builtMain = new URL('../dist/src/main.js', import.meta.url);
export const builtMainPath = fileURLToPath(builtMain);

const SOURCE = /\.(ts|tsx|css|html)$/;

/** The newest modification time of the sources under `dirs` (0: none). */
function newestSource(dirs) {
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
      else if (SOURCE.test(e.name)) newest = Math.max(newest, statSync(file).mtimeMs);
    }
  };
  for (const dir of dirs) {
    const where = `${root}${dir}`;
    if (existsSync(where) && statSync(where).isFile()) newest = Math.max(newest, statSync(where).mtimeMs);
    else walk(where);
  }
  return newest;
}

const builtDashboardPath = fileURLToPath(new URL('../dist/dashboard/index.html', import.meta.url));
const hasDashboardSources = () => existsSync(`${root}dashboard/index.html`);

export const hasBuild = () => existsSync(builtMainPath);
export const hasSources = () => existsSync(`${root}src/main.ts`);

/** A build that is there and not older than the sources (or with no sources beside it: an image). */
export const buildIsCurrent = () => hasBuild() && (!hasSources() || statSync(builtMainPath).mtimeMs >= newestSource(['src', 'commands', 'projections']));

/** The dashboard built (dist/dashboard) and not older than its sources (dashboard/, and the client it calls through). */
export const dashboardIsCurrent = () =>
  !hasDashboardSources() || (existsSync(builtDashboardPath) && statSync(builtDashboardPath).mtimeMs >= newestSource(['dashboard/src', 'dashboard/index.html', 'client/src']));
