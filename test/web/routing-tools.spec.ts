import { openSettled } from '../support/browser.js';
import { fixtures } from '../support/fixtures.js';
import { webPanel } from '../support/web-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Routing page's tools (issue 26 item 4) in a real browser: "Test a route" answers the hop
 * and highlights the rule that decided, in English and in Persian; "Apply now" moves the
 * node's revision.
 */
describe('routing tools in the web panel', () => {
  const { session, url, browserAt } = webPanel();
  const f = fixtures(session);
  let nodeId: string;
  let ruleId: string;
  let source: string;

  beforeAll(async () => {
    const [local] = await session().t.query<{ id: string }>('select id from nodes where is_local');
    nodeId = local.id;
    const iface = await f.createInterface({ name: 'wg-rtest' });
    const client = await f.createClient({ name: 'dana-rtest', interfaceIds: [iface.id] });
    source = String((await f.accountsOf(client.id))[0].ip);
    const hop = await f.call('POST', 'outbounds', {
      nodeId,
      tag: 'up-rtest',
      kind: 'socks',
      address: '203.0.113.50:1080',
    });
    expect(hop.status).toBe(201);
    const other = await f.call('POST', `routing/rules?nodeId=${nodeId}`, {
      name: 'docs blocked',
      destIps: ['198.51.100.0/24'],
      outboundTag: 'blocked',
    });
    expect(other.status).toBe(201);
    const rule = await f.call('POST', `routing/rules?nodeId=${nodeId}`, {
      name: 'dana web',
      clients: [client.id],
      ports: ['443'],
      outboundTag: 'up-rtest',
    });
    expect(rule.status).toBe(201);
    ruleId = rule.body.id;
  });

  test('Test a route answers the hop and highlights the rule; the same in Persian', async () => {
    const { page } = await browserAt();
    await openSettled(page, url('/routing'));
    const form = page.getByTestId('route-test');
    await form.waitFor();
    await form.getByTestId('route-test-source').fill(source);
    await form.getByTestId('route-test-destination').fill('203.0.113.9');
    await form.getByTestId('route-test-run').click();
    const answer = page.getByTestId('route-test-answer');
    await answer.waitFor();
    expect(await answer.getAttribute('data-outbound')).toBe('up-rtest');
    expect(await answer.getAttribute('data-rule')).toBe(ruleId);
    expect(await answer.textContent()).toMatch(/Carried by\s*up-rtest.*Rule 2: dana web \(clients, ports\)/);
    const highlighted = page.locator('[data-testid="rule"][data-highlighted]');
    await highlighted.waitFor();
    expect(await highlighted.getAttribute('data-name')).toBe('dana web');

    // Another port: no rule matches, the default outbound carries it and nothing is highlighted.
    await form.getByTestId('route-test-port').fill('80');
    await form.getByTestId('route-test-run').click();
    await waitFor('the default answer', async () => (await answer.getAttribute('data-outbound')) === 'direct');
    expect(await answer.textContent()).toContain('No rule matched: the default outbound');
    await highlighted.waitFor({ state: 'detached' });

    // A refusal shows under the field it names.
    await form.getByTestId('route-test-destination').fill('not a domain');
    await form.getByTestId('route-test-run').click();
    await form.getByText('destination must be an IPv4 address or a domain name').waitFor();

    const persian = await browserAt({ language: 'fa' });
    await openSettled(persian.page, url('/routing'));
    const fa = persian.page.getByTestId('route-test');
    await fa.getByText('آزمون یک مسیر').waitFor();
    await fa.getByTestId('route-test-source').fill(source);
    await fa.getByTestId('route-test-destination').fill('203.0.113.9');
    await fa.getByTestId('route-test-run').click();
    const faAnswer = persian.page.getByTestId('route-test-answer');
    await faAnswer.waitFor();
    expect(await faAnswer.textContent()).toMatch(/می‌رود از\s*up-rtest.*قانون ۲: dana web/);
  });

  test('Apply now moves the node’s revision and says so', async () => {
    const { page } = await browserAt();
    await openSettled(page, url('/routing'));
    const before = await f.revision(nodeId);
    await page.getByTestId('apply-now').click();
    await page.getByText(`Applied again: the node is at revision ${before + 1}`).waitFor();
    expect(await f.revision(nodeId)).toBe(before + 1);
  });
});
