import { jest } from '@jest/globals';
import { ClientTotals } from './client-totals.js';

describe('ClientTotals', () => {
  test('the same filter is counted once while fresh; concurrent requests share the count', async () => {
    const totals = new ClientTotals();
    const count = jest.fn(async () => 42);
    const [a, b] = await Promise.all([
      totals.get({ status: 'active' }, count),
      totals.get({ status: 'active' }, count),
    ]);
    expect([a, b]).toEqual([42, 42]);
    expect(await totals.get({ status: 'active' }, count)).toBe(42);
    expect(count).toHaveBeenCalledTimes(1);
    await totals.get({ status: 'disabled' }, count);
    expect(count).toHaveBeenCalledTimes(2);
  });

  test('a change clears every total at once', async () => {
    const totals = new ClientTotals();
    let rows = 1;
    const count = async () => rows;
    expect(await totals.get({}, count)).toBe(1);
    rows = 2;
    expect(await totals.get({}, count)).toBe(1);
    totals.changed();
    expect(await totals.get({}, count)).toBe(2);
  });

  test('totals expire after TTL_MS', async () => {
    const totals = new ClientTotals();
    const now = jest.spyOn(Date, 'now');
    now.mockReturnValue(1_000);
    let rows = 1;
    await totals.get({}, async () => rows);
    rows = 5;
    now.mockReturnValue(1_000 + ClientTotals.TTL_MS + 1);
    expect(await totals.get({}, async () => rows)).toBe(5);
    now.mockRestore();
  });

  test('a failed count is not remembered', async () => {
    const totals = new ClientTotals();
    await expect(totals.get({}, async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await totals.get({}, async () => 3)).toBe(3);
  });
});
