import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package version, from the nearest package.json up the tree (source and dist alike). */
function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'warren' && pkg.version) return pkg.version;
    }
  }
  return '0.0.0';
}

/** What the controller and the agents report as their version: they ship as one package. */
export const WARREN_VERSION = findVersion();
