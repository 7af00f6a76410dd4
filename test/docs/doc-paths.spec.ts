import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every repository path README.md and docs/*.md name in backticks exists, so the docs cannot
 * keep naming a file that was moved or removed. A path may be written from the repository root
 * or, as the area docs do, from the source root of an app (`nodes/nodes.module.ts` for
 * apps/controller/src/nodes/nodes.module.ts); a bare file name must exist somewhere in the tree.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOP = new Set(readdirSync(ROOT));
/** Where area docs write paths from: the repository root and the source roots of the apps. */
const BASES = [
  '',
  'apps/',
  'libs/',
  'test/',
  'apps/controller/src/',
  'apps/agent/src/',
  'apps/agent/src/host/',
  'apps/web/',
  'apps/web/src/',
];
const SEARCHED = ['apps', 'libs', 'test', 'bench', 'bin', 'deploy', 'docs', 'scripts', '.ci'];
const SOURCE_FILE = /\.(ts|tsx|js|cjs|mjs|md|sh|yaml|yml|sql)$/;
/** Shaped like a path: segments of plain characters, with a slash or a file extension. */
const PATH_LIKE = /^[\w.-]+(\/[\w.-]+)*\/?$/;

function entries(dir: string): { files: string[]; dirs: string[] } {
  const found = { files: [] as string[], dirs: [] as string[] };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) found.files.push(entry.name);
    else {
      const inner = entries(path);
      found.dirs.push(entry.name, ...inner.dirs);
      found.files.push(...inner.files);
    }
  }
  return found;
}

const tree = SEARCHED.filter((dir) => existsSync(join(ROOT, dir))).map((dir) => entries(join(ROOT, dir)));
const fileNames = new Set(tree.flatMap((found) => found.files));
const dirNames = new Set(tree.flatMap((found) => found.dirs));

/**
 * Source files, directories and anything under a top-level folder. Other names are files on a
 * host (`managed.json`, `postgres/` in the data directory), package names or URL paths.
 */
function isRepositoryPath(text: string): boolean {
  if (!PATH_LIKE.test(text) || !/[/.]/.test(text)) return false;
  // Outside the repository (../shared/ lies beside a checkout, not in it): not this check's.
  if (text.startsWith('../')) return false;
  if (TOP.has(text.split('/')[0]) && text.includes('/')) return true;
  return SOURCE_FILE.test(text) || (text.endsWith('/') && dirNames.has(text.slice(0, -1).split('/')[0]));
}

function exists(path: string): boolean {
  if (BASES.some((base) => existsSync(join(ROOT, base, path)))) return true;
  // A bare name: a file or folder of that name somewhere in the tree (`inventory.repository.ts`, `delivery/`).
  if (path.endsWith('/') && !path.slice(0, -1).includes('/')) return dirNames.has(path.slice(0, -1));
  return !path.includes('/') && fileNames.has(basename(path));
}

const documents = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

test.each(documents)('every path %s names exists', (document) => {
  const text = readFileSync(join(ROOT, document), 'utf8');
  const named = [...text.matchAll(/`([^`\s]+)`/g)].map(([, path]) => path).filter(isRepositoryPath);
  expect(named.filter((path) => !exists(path))).toEqual([]);
});
