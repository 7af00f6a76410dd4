// `npm run lint:openapi` (after `npm run build`): builds the panel's OpenAPI document as
// `npm run api-client` does (libs/api-client/openapi.json is the committed copy) and lints it with
// Redocly's recommended rules (redocly.yaml). Redocly fails only on errors; here a warning fails too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const { offlineOpenApiDocument } = await import(join(root, 'dist/apps/controller/src/docs/offline-document.js'));
const dir = mkdtempSync(join(tmpdir(), 'warren-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await offlineOpenApiDocument(), null, 2));
  const redocly = (format) =>
    spawnSync(
      join(root, 'node_modules/.bin/redocly'),
      ['lint', file, '--config', join(root, 'redocly.yaml'), `--format=${format}`],
      {
        encoding: 'utf8',
      },
    );
  const { totals } = JSON.parse(redocly('json').stdout);
  if (totals.errors + totals.warnings > 0) {
    process.stdout.write(redocly('codeframe').stderr);
    console.error(`lint:openapi: ${totals.errors} errors and ${totals.warnings} warnings (none are allowed)`);
    process.exitCode = 1;
  } else {
    console.log('lint:openapi: the OpenAPI document passes the recommended rules');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
