import { assertPublicTarget, type Resolver } from './private-targets.js';

const resolvingTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address }));

describe('assertPublicTarget', () => {
  test('a name resolving to a forbidden address is refused without naming the address', async () => {
    for (const address of ['10.1.2.3', '169.254.169.254', 'fd00::7', '64:ff9b::a00:5']) {
      const refused = assertPublicTarget('db.corp.example', 'address', 'hops', resolvingTo('203.0.113.9', address));
      await expect(refused).rejects.toMatchObject({
        status: 400,
        field: 'address',
        message: expect.stringMatching(/^db\.corp\.example resolves to a forbidden address;/),
      });
      await expect(refused).rejects.toMatchObject({ message: expect.not.stringContaining(address) });
    }
  });

  test('an address given as such is named with its range (the caller wrote it)', async () => {
    await expect(assertPublicTarget('10.1.2.3', 'address', 'hops', resolvingTo())).rejects.toMatchObject({
      message: expect.stringMatching(/^10\.1\.2\.3 is a private \(RFC 1918\) address/),
    });
  });

  test('a name resolving only to public addresses, or not at all, passes', async () => {
    await expect(assertPublicTarget('example.org', 'address', 'hops', resolvingTo('203.0.113.9'))).resolves.toBe(
      undefined,
    );
    const failing: Resolver = () => Promise.reject(new Error('ENOTFOUND'));
    await expect(assertPublicTarget('nowhere.example', 'address', 'hops', failing)).resolves.toBe(undefined);
  });

  test('for a URL the panel fetches, a name resolving to a forbidden address and one not resolving read the same', async () => {
    const failing: Resolver = () => Promise.reject(new Error('getaddrinfo ENOTFOUND nowhere.example'));
    const answers: string[] = [];
    for (const resolver of [resolvingTo('203.0.113.9', '10.1.2.3'), failing, resolvingTo()]) {
      const refused = await assertPublicTarget('db.corp.example', 'url', 'subscriptions', resolver, true).catch(
        (e) => e,
      );
      expect(refused).toMatchObject({ status: 400, field: 'url' });
      answers.push(refused.message);
    }
    expect(answers).toEqual(Array(3).fill(answers[0]));
    expect(answers[0]).toMatch(/^db\.corp\.example cannot be fetched: it does not resolve to a public address;/);
    await expect(
      assertPublicTarget('example.org', 'url', 'subscriptions', resolvingTo('203.0.113.9'), true),
    ).resolves.toBe(undefined);
  });
});
