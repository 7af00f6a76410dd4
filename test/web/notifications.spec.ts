import type { Page } from 'playwright-core';
import { assertWebBuilt, openSettled, PHONE, signedInBrowser, type TestBrowser } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { nonPersian } from '../support/persian-text.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The Notifications page in a real browser (docs/notifications.md): a webhook added (its secret
 * shown once), the test through every channel reaching a local receiver, the delivery log, a
 * switch saved, and the page in Persian on a phone.
 */
describe('the Notifications page', () => {
  let t: TestPanel;
  let token = '';
  let target: WebhookReceiver;
  const f = fixtures(() => ({ t, token }));
  const opened: TestBrowser[] = [];

  async function browserAt(options: { viewport?: typeof PHONE; language?: 'fa' } = {}): Promise<Page> {
    const browser = await signedInBrowser((path) => `${t.panel.origin}${t.config.basePath}${path}`, OWNER, options);
    opened.push(browser);
    return browser.page;
  }

  beforeAll(async () => {
    assertWebBuilt();
    t = await startTestPanel();
    token = await t.login();
    target = await startWebhookReceiver();
    expect((await f.call('PATCH', 'settings', { allowPrivateTargets: true })).status).toBe(200);
  });
  afterAll(async () => {
    for (const browser of opened) await browser.close();
    await target?.close();
    await t?.stop();
  });

  test('add a webhook, see its secret once, send a test, read the delivery log, save a switch', async () => {
    const page = await browserAt();
    await openSettled(page, `${t.panel.origin}${t.config.basePath}/notifications`);
    await page.getByLabel('Name', { exact: true }).fill('ops');
    await page.getByTestId('webhook-url').fill(target.url);
    await page.getByTestId('add-webhook').click();
    const secret = (await page.getByTestId('webhook-secret').locator('pre').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    target.secret = secret;
    await page.getByTestId('webhooks').getByText(target.url).waitFor();

    await page.getByTestId('notify-test').click();
    await waitFor('the test event at the receiver', () => target.received.length > 0);
    expect(target.received[0].verified).toBe(true);
    await page.getByRole('button', { name: 'Delivery log' }).click();
    await page.getByTestId('deliveries').getByText('Test notification').waitFor();
    await page.getByTestId('deliveries').getByText('Delivered').waitFor();

    await page.getByRole('checkbox', { name: 'Quota at 80 % · Webhooks' }).uncheck();
    expect(await page.getByLabel('Keep events for (days)').inputValue()).toBe('30');
    await page.getByLabel('Keep events for (days)').fill('14');
    await page.getByTestId('save-switches').click();
    await waitFor('the switch and the retention saved', async () => {
      const read = await f.call('GET', 'settings/notify');
      return (
        read.body.retentionDays === 14 &&
        read.body.switches.some(
          (one: { kind: string; channel: string; enabled: boolean }) =>
            one.kind === 'client.quota-80' && one.channel === 'webhook' && !one.enabled,
        )
      );
    });
    // Reloaded, the page shows the endpoint without its secret.
    await openSettled(page, `${t.panel.origin}${t.config.basePath}/notifications`);
    await page.getByTestId('webhooks').getByText(target.url).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  test('in Persian on a phone: no untranslated text', async () => {
    const page = await browserAt({ viewport: PHONE, language: 'fa' });
    await openSettled(page, `${t.panel.origin}${t.config.basePath}/notifications`);
    await page.getByTestId('notify-switches').waitFor();
    expect(await nonPersian(page, 'main')).toEqual([]);
  });
});
