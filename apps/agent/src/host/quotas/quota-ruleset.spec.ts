import { quotaName, renderQuotaCorrections, renderQuotaTable } from './quota-ruleset.js';

const client = '0b9c3a1e-6a43-4a8e-9d2f-1c2b3a4d5e6f';

test('the table is declared, never deleted, while quotas exist; chains and map are refilled in the same transaction', () => {
  const text = renderQuotaTable(
    'warren_quota',
    [{ client, ips: ['10.8.0.2', '10.8.0.3'], change: { kind: 'update', limit: 5000 }, exists: true }],
    ['c_stale'],
  );
  expect(text).not.toContain('delete table');
  expect(text).toContain('flush map ip warren_quota client_of');
  expect(text).toContain('delete quota ip warren_quota c_stale');
  expect(text).toContain(`add quota ip warren_quota ${quotaName(client)} { over 5000 bytes }`);
  expect(text).toContain(
    `add element ip warren_quota client_of { 10.8.0.2 : "${quotaName(client)}", 10.8.0.3 : "${quotaName(client)}" }`,
  );
  expect(text).toContain('add rule ip warren_quota from_client quota name ip saddr map @client_of drop');
  expect(text).toContain('add rule ip warren_quota to_client quota name ip daddr map @client_of drop');
  // Deleting a stale quota comes after the map that pointed at it was flushed.
  expect(text.indexOf('delete quota')).toBeGreaterThan(text.indexOf('flush map'));
});

test('no quotas: the table goes', () => {
  expect(renderQuotaTable('warren_quota', [], [])).toBe('table ip warren_quota {}\ndelete table ip warren_quota\n');
});

test('a correction re-creates an exhausted quota between taking its addresses out of the map and putting them back', () => {
  const name = quotaName(client);
  expect(
    renderQuotaCorrections('warren_quota', [
      { client, ips: ['10.8.0.2'], change: { kind: 'create', limit: 100 }, exists: true },
    ]).split('\n'),
  ).toEqual([
    'delete element ip warren_quota client_of { 10.8.0.2 }',
    `delete quota ip warren_quota ${name}`,
    `add quota ip warren_quota ${name} { over 100 bytes }`,
    `add element ip warren_quota client_of { 10.8.0.2 : "${name}" }`,
    '',
  ]);
  expect(renderQuotaCorrections('warren_quota', [{ client, ips: [], change: { kind: 'keep' }, exists: true }])).toBe(
    '',
  );
});
