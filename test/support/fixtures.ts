import { randomSuffix } from './random-suffix.js';
import type { TestPanel } from './test-panel.js';

/**
 * Fixture builders: what many tests make before the part they test (nodes, interfaces, clients,
 * hosts) made through the API as an operator would, and the few database readings several specs
 * check against. Every builder expects the creation to succeed (201) and returns the answer body.
 */

export type Answer = Awaited<ReturnType<TestPanel['call']>>;
/** A signed-in call: JSON body in, `{status, body, headers}` out. */
export type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

/** The panel and the token to call it with. */
export interface Session {
  t: TestPanel;
  token: string;
}

let interfaceSequence = 0;

/**
 * A valid interface body whose name (`wg<n>`), port (40000 + n) and subnet (10.<100 + n>.0.0/24)
 * no earlier fresh body of this test file used, so they never clash on a node; `over` wins.
 */
export function freshInterface(over: Record<string, unknown> = {}): Record<string, unknown> {
  const n = ++interfaceSequence;
  if (n > 155) throw new Error('freshInterface: no /24 left under 10.255 (more than 155 interfaces in one test file)');
  return { name: `wg${n}`, listenPort: 40000 + n, subnet: `10.${100 + n}.0.0/24`, endpointHost: 'vpn.example.com', ...over };
}

export interface Fixtures {
  call: Call;
  /** POST /api/nodes; the body includes the one-time `enrolment`. */
  createNode(over?: Record<string, unknown>): Promise<any>;
  /** POST /api/interfaces with a fresh name, port and subnet (on the local node unless `nodeId`). */
  createInterface(over?: Record<string, unknown>): Promise<any>;
  /** A node of its own with one interface: revisions and names there belong to one test alone. */
  createNodeWithInterface(over?: { node?: Record<string, unknown>; interface?: Record<string, unknown> }): Promise<{ node: any; iface: any }>;
  /** POST /api/clients, with a random name unless `body` names it. */
  createClient(body?: Record<string, unknown>): Promise<any>;
  /** GET /api/clients/{id}: the client's view. */
  getClient(id: string): Promise<any>;
  /** GET /api/nodes/{id}: the node's view (revisions, agent, sync). */
  getNode(id: string): Promise<any>;
  /** POST /api/hosts. */
  createHost(body: Record<string, unknown>): Promise<any>;
  /** The node's desired revision, as stored. */
  revision(nodeId: string): Promise<number>;
  /** Every node's desired revision, by node id. */
  revisions(): Promise<Record<string, number>>;
  /** How many rows the table has. */
  count(table: string): Promise<number>;
  /** The client's accounts (every column, plus `device_name`), in the order of its devices. */
  accountsOf(clientId: string): Promise<Record<string, any>[]>;
  /**
   * Expects the request refused with `status` and `{error, field}` (the error matching `message`
   * if given), and the options' `unchanged` reading the same after it as before.
   */
  expectRefused(method: string, path: string, body: unknown, status: number, field: string, message?: RegExp): Promise<{ error: string; field: string }>;
}

export interface FixtureOptions {
  /** What a refused request must leave untouched (counts, rows, revisions...): read before and after. */
  unchanged?: () => Promise<unknown>;
}

/**
 * The builders for a session. `session` is read on every call, so a spec can build its fixtures
 * at the top and start its panel in beforeAll: `fixtures(() => ({ t, token }))`.
 */
export function fixtures(session: () => Session, options: FixtureOptions = {}): Fixtures {
  const call: Call = (method, path, body) => {
    const { t, token } = session();
    return t.call(method, path, { token, body });
  };
  const query = <T>(sql: string, params: unknown[] = []) => session().t.query<T>(sql, params);
  const created = async (path: string, body: Record<string, unknown>) => {
    const response = await call('POST', path, body);
    // The body rides along so that a refusal shows its {error, field}.
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return response.body;
  };
  const createNode: Fixtures['createNode'] = (over = {}) => created('nodes', { name: `node-${randomSuffix(8)}`, address: '192.0.2.10', ...over });
  const createInterface: Fixtures['createInterface'] = (over = {}) => created('interfaces', freshInterface(over));
  return {
    call,
    createNode,
    createInterface,
    async createNodeWithInterface(over = {}) {
      const node = await createNode(over.node);
      const iface = await createInterface({ nodeId: node.id, ...over.interface });
      return { node, iface };
    },
    createClient: (body = {}) => created('clients', { name: `c-${randomSuffix(8)}`, ...body }),
    getClient: async (id) => (await call('GET', `clients/${id}`)).body,
    getNode: async (id) => (await call('GET', `nodes/${id}`)).body,
    createHost: (body) => created('hosts', body),
    async revision(nodeId) {
      const [row] = await query<{ desired_revision: string }>('select desired_revision from nodes where id = $1', [nodeId]);
      return Number(row.desired_revision);
    },
    async revisions() {
      const rows = await query<{ id: string; desired_revision: string }>('select id, desired_revision from nodes');
      return Object.fromEntries(rows.map((row) => [row.id, Number(row.desired_revision)]));
    },
    async count(table) {
      return Number((await query<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
    },
    accountsOf: (clientId) =>
      query(
        `select a.*, d.name as device_name from accounts a join devices d on d.id = a.device_id
          where d.client_id = $1 order by d.created_at, a.id`,
        [clientId],
      ),
    async expectRefused(method, path, body, status, field, message) {
      const before = await options.unchanged?.();
      const response = await call(method, path, body);
      expect({ status: response.status, body: response.body }).toEqual({ status, body: { error: expect.any(String), field } });
      if (message) expect(response.body.error).toMatch(message);
      if (options.unchanged) expect(await options.unchanged()).toEqual(before);
      return response.body;
    },
  };
}
