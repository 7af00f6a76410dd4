import { fixtures } from '../support/fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { webPanel } from '../support/web-panel.js';

/**
 * The Telegram card on the Settings page (docs/telegram.md) in a real browser: the owner stores a
 * token and an operator chat, after which the card says a token is set and never shows it; removes
 * it after confirming (the bot goes off); in Persian the card speaks Persian. The bot stays off here: no call may leave the machine.
 */
describe('the Telegram settings card', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  const TOKEN = '123456789:AAE-web-test-token-0000000000';

  test('the owner stores a token and an operator chat; the token is never shown again', async () => {
    const { page, pageErrors } = await browserAt();
    const ownerId = (await session().t.query<{ id: string }>(`select id from users where username = 'owner'`))[0].id;
    await page.goto(url('/settings'));
    const card = page.getByTestId('telegram-settings');
    await card.getByText('No token yet').waitFor();
    await card.getByLabel('Bot token').fill(TOKEN);
    await card.getByRole('button', { name: 'Add a chat' }).click();
    await card.getByPlaceholder('Chat id').fill('5000000777');
    await card.getByPlaceholder('Operator').click();
    await page.getByRole('option', { name: /^owner/ }).click();
    await card.getByTestId('save-telegram').click();
    await card.getByText('A token is set').waitFor();
    const stored = await waitFor('the settings stored', async () => {
      const answer = (await f.call('GET', 'settings/telegram')).body;
      return answer.tokenSet && answer;
    });
    expect(stored).toMatchObject({
      enabled: false,
      tokenSet: true,
      operatorChats: [{ chatId: 5000000777, userId: ownerId, role: 'owner' }],
    });
    expect(await card.getByLabel('Bot token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(TOKEN.split(':')[1]);
    expect(pageErrors).toEqual([]);
  });

  test('the owner removes the token after confirming; the bot is off, the chats stay', async () => {
    const { page, pageErrors } = await browserAt();
    expect((await f.call('PATCH', 'settings/telegram', { token: TOKEN })).status).toBe(200);
    await page.goto(url('/settings'));
    const card = page.getByTestId('telegram-settings');
    await card.getByText('A token is set').waitFor();
    // Cancelled first: nothing changes.
    await card.getByTestId('remove-telegram-token').click();
    await page.getByRole('dialog').getByText('The bot stops').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await f.call('GET', 'settings/telegram')).body.tokenSet).toBe(true);
    await card.getByTestId('remove-telegram-token').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove token' }).click();
    await card.getByText('No token yet').waitFor();
    expect(await card.getByTestId('remove-telegram-token').count()).toBe(0);
    const stored = (await f.call('GET', 'settings/telegram')).body;
    expect(stored).toMatchObject({ enabled: false, tokenSet: false });
    expect(stored.operatorChats).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });

  test('in Persian', async () => {
    expect((await f.call('PATCH', 'settings/telegram', { token: TOKEN })).status).toBe(200);
    const { page } = await browserAt({ language: 'fa' });
    await page.goto(url('/settings'));
    const card = page.getByTestId('telegram-settings');
    await card.getByText('ربات تلگرام').waitFor();
    expect(await card.innerText()).toContain('گفتگوهای مدیران');
    await card.getByTestId('remove-telegram-token').click();
    await page.getByRole('dialog').getByText('ربات خاموش می‌شود').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'حذف توکن' }).click();
    await waitFor('the token removed', async () => !(await f.call('GET', 'settings/telegram')).body.tokenSet);
  });
});
