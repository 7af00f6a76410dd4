import { startTestPanel, type TestPanel } from '../support/test-panel.js';

let t: TestPanel;
beforeAll(async () => {
  t = await startTestPanel();
});
afterAll(async () => {
  await t?.stop();
});

test('a defect answers 500 {"error":"internal error","field":""} with no stack or detail', async () => {
  const token = await t.login();
  // Break the database under the running panel: listing tokens now fails inside the service.
  await t.query('alter table api_tokens rename to api_tokens_gone');
  const response = await t.call('GET', 'tokens', { token });
  expect(response.status).toBe(500);
  expect(response.body).toEqual({ error: 'internal error', field: '' });
  expect(JSON.stringify(response.body)).not.toMatch(/api_tokens|relation|select/i);
  await t.query('alter table api_tokens_gone rename to api_tokens');
});
