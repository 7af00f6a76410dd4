import type { RouteSpec } from '../http/route.decorator.js';
import { nameOf, recordable, removedFields, requestedChanges } from './audit-changes.js';
import { auditedRoute } from './audited-route.js';

const route = (method: RouteSpec['method'], path: string, audit?: RouteSpec['audit']): RouteSpec =>
  ({ method, path, group: 'clients', summary: 's', roles: ['owner'], response: Object, audit }) as RouteSpec;

describe('auditedRoute', () => {
  test('names actions and targets from the method and path', () => {
    const cases: [RouteSpec['method'], string, string, string, string | null][] = [
      ['POST', 'clients', 'clients.create', 'clients', null],
      ['PATCH', 'clients/:id', 'clients.update', 'clients', 'id'],
      ['PUT', 'template', 'template.replace', 'template', null],
      ['DELETE', 'backups/:name', 'backups.delete', 'backups', 'name'],
      ['POST', 'clients/:id/reset', 'clients.reset', 'clients', 'id'],
      ['POST', 'backups/:name/restore', 'backups.restore', 'backups', 'name'],
      ['POST', 'auth/login', 'auth.login', 'auth', null],
      ['PATCH', 'routing/rules/:id', 'routing.rules.update', 'rules', 'id'],
      ['PATCH', 'settings', 'settings.update', 'settings', null],
    ];
    for (const [method, path, action, targetType, idParam] of cases)
      expect(auditedRoute(route(method, path))).toMatchObject({ action, targetType, idParam, fields: true });
    expect(auditedRoute(route('PATCH', 'clients/:id'))?.route).toBe('/api/clients/{id}');
  });

  test('a declaration wins; reads and `audit: false` are not recorded', () => {
    expect(
      auditedRoute(route('PATCH', 'auth/me', { action: 'auth.password', target: 'users', self: true })),
    ).toMatchObject({ action: 'auth.password', targetType: 'users', self: true });
    expect(auditedRoute(route('POST', 'auth/login', { fields: false }))?.fields).toBe(false);
    expect(auditedRoute(route('GET', 'clients'))).toBeNull();
    expect(auditedRoute(route('POST', 'things/preview', false))).toBeNull();
  });
});

describe('the changes recorded', () => {
  test('old → new for what changed, the stored value winning over the sent one; unchanged fields left out', () => {
    expect(
      requestedChanges(
        { name: ' bob ', note: 'same', quotaBytes: 5 },
        { name: 'alice', note: 'same', quotaBytes: 1 },
        { name: 'bob', note: 'same', quotaBytes: 5 },
      ),
    ).toEqual([
      { field: 'name', old: 'alice', new: 'bob' },
      { field: 'quotaBytes', old: 1, new: 5 },
    ]);
    expect(requestedChanges({ name: 'new' }, null, null)).toEqual([{ field: 'name', new: 'new' }]);
    expect(requestedChanges('not an object', null, null)).toEqual([]);
  });

  test('secrets are changed, never values, at the top and nested', () => {
    expect(
      requestedChanges(
        { password: 'p', currentPassword: 'c', privateKey: 'k', code: '123456', presharedKey: 'x', name: 'n' },
        { password: 'old' },
        null,
      ),
    ).toEqual([
      { field: 'code', secret: true },
      { field: 'currentPassword', secret: true },
      { field: 'name', new: 'n' },
      { field: 'password', secret: true },
      { field: 'presharedKey', secret: true },
      { field: 'privateKey', secret: true },
    ]);
    expect(recordable({ hops: [{ tag: 'a', password: 'p', private_key: 'k' }], token: 't' })).toEqual({
      hops: [{ tag: 'a', password: '[secret]', private_key: '[secret]' }],
      token: '[secret]',
    });
    expect(removedFields({ name: 'n', tokenHash: 'h', devices: [{}] })).toEqual([
      { field: 'name', old: 'n' },
      { field: 'tokenHash', secret: true },
    ]);
  });

  test('huge values are a note of their size; names are found', () => {
    expect(recordable('x'.repeat(5000))).toBe('[5002 characters, not recorded]');
    expect(nameOf({ name: 'alice' })).toBe('alice');
    expect(nameOf({ username: 'owner' })).toBe('owner');
    expect(nameOf({ id: 'x', tag: 'direct' })).toBe('direct');
    expect(nameOf(null)).toBeNull();
  });
});
