import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiClientFiles } from './api-client-files.js';

// `npm run api-client`: regenerates libs/api-client from the panel's own route declarations.
const target = join(process.cwd(), 'libs', 'api-client');
for (const [name, text] of Object.entries(await apiClientFiles())) {
  writeFileSync(join(target, name), text);
  console.log(`wrote libs/api-client/${name}`);
}
