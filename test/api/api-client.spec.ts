import { readFileSync } from 'node:fs';
import { apiClientFiles } from '../../apps/controller/src/docs/api-client-files.js';

// The committed client must be what the route declarations make today: run `npm run api-client`.
test('libs/api-client is generated from the current OpenAPI document', async () => {
  const files = await apiClientFiles();
  for (const [name, text] of Object.entries(files)) {
    const committed = readFileSync(new URL(`../../libs/api-client/${name}`, import.meta.url), 'utf8');
    expect({ file: name, upToDate: committed === text }).toEqual({ file: name, upToDate: true });
  }
});
