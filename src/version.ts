// The version of engage that runs: package.json's, found above this module (from src/ or dist/src/).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function readVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'engage' && manifest.version) return manifest.version;
    } catch {
      /* no package.json here: look higher */
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}

export const VERSION = readVersion();
