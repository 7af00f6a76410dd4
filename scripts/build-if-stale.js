// Builds dist/ (npm run build) unless it was built from the sources as they are now: `npm start`
// then starts at once instead of after a build (7 s here), and still never runs a build older
// than the code. (`npm run cli` builds only when there is no build: it may run beside a panel,
// whose web assets a rebuild would delete under it.) The sources' digest (every file under apps/ and libs/, and the
// build's own settings, less the OpenAPI metadata the build generates from them) is taken as the
// build starts and kept in dist/.sources when it succeeded, unless the sources changed meanwhile.
//
// Run: node scripts/build-if-stale.js. `npm run build` itself calls it with --forget
// first (a build that fails half-way leaves no digest behind) and --stamp last.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.sources');
/** The digest as a build began, stamped when it ends only if the sources still have it. */
const PENDING = join(ROOT, 'dist', '.sources-building');
/** Written by the build itself (scripts/openapi-metadata.js), from the sources hashed. */
const GENERATED = 'apps/controller/src/docs/openapi-metadata.ts';
const TREES = ['apps', 'libs'];
const FILES = [
  'package.json',
  'package-lock.json',
  '.swcrc',
  'tsconfig.json',
  'scripts/locales.swcrc',
  'scripts/openapi-metadata.js',
];

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
  for (const path of paths.filter((p) => existsSync(p) && relative(ROOT, p) !== GENERATED).sort()) {
    hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

if (process.argv.includes('--forget')) {
  rmSync(STAMP, { force: true });
  mkdirSync(dirname(PENDING), { recursive: true });
  writeFileSync(PENDING, `${sourcesDigest()}\n`);
} else if (process.argv.includes('--stamp')) {
  const started = existsSync(PENDING) ? readFileSync(PENDING, 'utf8').trim() : null;
  rmSync(PENDING, { force: true });
  if (started === sourcesDigest()) writeFileSync(STAMP, `${started}\n`);
} else {
  // A stamp alone is not a build: outputs removed by hand send it to build again.
  const outputs = ['dist/apps/controller/src/main.js', 'dist/apps/agent/src/main.js', 'dist/web/index.html'];
  const built =
    existsSync(STAMP) && outputs.every((file) => existsSync(join(ROOT, file)))
      ? readFileSync(STAMP, 'utf8').trim()
      : null;
  if (built !== null && built === sourcesDigest()) {
    process.stderr.write('dist/ is up to date with the sources: no build needed\n');
  } else {
    process.stderr.write(
      built === null
        ? 'building dist/ (npm run build)…\n'
        : 'the sources changed since the last build: building dist/…\n',
    );
    try {
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    } catch (error) {
      // The build printed what failed; a trace of this script would only bury it.
      process.stderr.write('the build failed (above): nothing was started; fix it and run again\n');
      process.exit(error.status ?? 1);
    }
  }
}
