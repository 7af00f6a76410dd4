// Builds dist/ (npm run build) unless it was built from the sources as they are now: `npm start`
// and `npm run cli` then start at once instead of after a build (7 s here), and still never run
// a build older than the code. The sources' digest (every file under apps/ and libs/, and the
// build's own settings) is kept in dist/.sources after a build that succeeded; the digest is
// taken after the build, which writes some of its inputs (the OpenAPI metadata).
//
// Run: node scripts/build-if-stale.js [--quiet]. `npm run build` itself calls it with --forget
// first (a build that fails half-way leaves no digest behind) and --stamp last.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.sources');
const TREES = ['apps', 'libs'];
const FILES = [
  'package.json',
  'package-lock.json',
  '.swcrc',
  'tsconfig.json',
  'scripts/locales.swcrc',
  'scripts/openapi-metadata.js',
];
const quiet = process.argv.includes('--quiet');

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

function sourcesDigest() {
  const hash = createHash('sha256');
  const paths = [...TREES.flatMap((tree) => [...filesUnder(join(ROOT, tree))]), ...FILES.map((f) => join(ROOT, f))];
  for (const path of paths.filter((p) => existsSync(p)).sort()) {
    hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

if (process.argv.includes('--forget')) {
  rmSync(STAMP, { force: true });
} else if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${sourcesDigest()}\n`);
} else {
  const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : null;
  if (built !== null && built === sourcesDigest()) {
    if (!quiet) process.stderr.write('dist/ is built from the sources as they are: not built again\n');
  } else {
    process.stderr.write(
      built === null ? 'building dist/…\n' : 'the sources changed since the last build: building dist/…\n',
    );
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  }
}
