import { waitFor } from './wait-for.js';
import { randomUUID } from 'node:crypto';
import type { ApiClient, components } from '#libs/api-client/index.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { hashPassword } from '../../apps/controller/src/auth/password.js';
import { randomSuffix } from './random-suffix.js';
import { startTestPanel, type PanelEndpoint, type TestPanel } from './test-panel.js';
import { refusal } from './refusal.js';

/**
 * Fixture builders: what many tests make before the part they test (nodes, interfaces, clients,
 * hosts, tokens) made through the API as an operator would, and the few database readings several
 * specs check against. Every builder expects the creation to succeed (201) and returns the answer
 * body; every reader expects 200.
 *
 * Two ways to call the panel, both checked against its OpenAPI document (test-panel.ts):
 * - the typed client (`typed()`, libs/api-client) for well-formed calls: paths, parameters, bodies
 *   and answers are typed by the document, so tsc catches a test that drifts from it. The builders
 *   and readers below use it, and so should a spec's happy paths.
 * - the raw `call(method, path, body)` for malformed requests the types would reject on purpose
 *   (unknown fields, wrong types, bad ids, missing credentials...): refusals, `expectRefused`.
 */

export type Answer = Awaited<ReturnType<TestPanel['call']>>;
/** A signed-in raw call: JSON body in, `{status, body, headers}` out. For malformed requests. */
export type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

export type Schemas = components['schemas'];
export type NodeView = Schemas['CreatedNodeDto'];
export type InterfaceView = Schemas['InterfaceDto'];
export type ClientView = Schemas['ClientDetailDto'];
export type HostView = Schemas['HostDto'];
export type IssuedToken = Schemas['IssuedTokenDto'];

/** A user made by `createUser`, signed in. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
  role: UserRole;
  /** A session token from signing in. */
  token: string;
}

export type InterfaceBody = Schemas['CreateInterfaceDto'];
export type HostBody = Schemas['CreateHostDto'];
export type InterfaceUpdate = Schemas['UpdateInterfaceDto'];

/**
 * A typed client's answer in the raw call's shape, `{status, body, headers}`, so that a spec's
 * assertions read the same whichever way it called. `body` is typed as the success answer: use it
 * for calls expected to succeed (a refusal's `{error, field}` is still there to show in a failure).
 */
export async function answer<D>(
  pending: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<{ status: number; body: D; headers: Headers }> {
  const { data, error, response } = await pending;
  return { status: response.status, body: (data ?? error) as D, headers: response.headers };
}

/** The panel and the token to call it with. */
export interface Session {
  t: TestPanel;
  token: string;
}

/**
 * A panel for a whole spec file, signed in as the owner: started in beforeAll, stopped in
 * afterAll. Read the session inside tests (`session().t`); it is also what fixtures() takes.
 */
export function signedInPanel(): () => Session {
  let current: Session | undefined;
  beforeAll(async () => {
    const t = await startTestPanel();
    current = { t, token: await t.login() };
  });
  afterAll(async () => {
    await current?.t.stop();
  });
  return () => {
    if (!current) throw new Error('signedInPanel: the panel is not started yet (read the session inside a test)');
    return current;
  };
}

let interfaceSequence = 0;

/**
 * A valid interface body whose name (`wg<n>`), port (40000 + n) and subnet (10.<100 + n>.0.0/24)
 * no earlier fresh body of this test file used, so they never clash on a node; `over` wins.
 */
export function freshInterface<T extends Record<string, unknown> = Partial<InterfaceBody>>(
  over: T = {} as T,
): InterfaceBody & T {
  const n = ++interfaceSequence;
  if (n > 155) throw new Error('freshInterface: no /24 left under 10.255 (more than 155 interfaces in one test file)');
  return {
    name: `wg${n}`,
    listenPort: 40000 + n,
    subnet: `10.${100 + n}.0.0/24`,
    endpointHost: 'vpn.example.com',
    ...over,
  };
}

export interface Fixtures {
  /** The raw call, signed in: for malformed requests the typed client would not let through. */
  call: Call;
  /** The typed client (libs/api-client), signed in: for well-formed calls. */
  typed(): ApiClient;
  /** POST /api/nodes; the body includes the one-time `enrolment`. */
  createNode(over?: Partial<Schemas['CreateNodeDto']>): Promise<NodeView>;
  /** POST /api/interfaces with a fresh name, port and subnet (on the local node unless `nodeId`). */
  createInterface(over?: Partial<InterfaceBody>): Promise<InterfaceView>;
  /** A node of its own with one interface: revisions and names there belong to one test alone. */
  createNodeWithInterface(over?: {
    node?: Partial<Schemas['CreateNodeDto']>;
    interface?: Partial<InterfaceBody>;
  }): Promise<{ node: NodeView; iface: InterfaceView }>;
  /** POST /api/clients, with a random name unless `body` names it. */
  createClient(body: Schemas['CreateClientDto']): Promise<ClientView>;
  /** GET /api/clients/{id}: the client's view. */
  getClient(id: string): Promise<ClientView>;
  /** GET /api/nodes/{id}: the node's view (revisions, agent, sync). */
  getNode(id: string): Promise<Schemas['NodeDto']>;
  /** Waits until the node's agent is connected and the node applied its desired revision; the node then. */
  nodeInSync(id: string, timeoutMs?: number): Promise<Schemas['NodeDto']>;
  /** POST /api/hosts. */
  createHost(body: HostBody): Promise<HostView>;
  /** POST /api/tokens (named at random unless `over` names it), issued with the session's token unless `as` is another. */
  createToken(over?: Partial<Schemas['CreateTokenDto']>, as?: string): Promise<IssuedToken>;
  /**
   * A user of the role, signed in. The API has no user management (the contract names none), so
   * the row is written to the database as the panel would store it; signing in is the real route.
   */
  createUser(role: UserRole): Promise<TestUser>;
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
   * if given), and the options' `unchanged` reading the same after it as before. A raw call.
   */
  expectRefused(
    method: string,
    path: string,
    body: unknown,
    status: number,
    field: string,
    message?: RegExp,
  ): Promise<{ error: string; field: string }>;
}

export interface FixtureOptions {
  /** What a refused request must leave untouched (counts, rows, revisions...): read before and after. */
  unchanged?: () => Promise<unknown>;
}

/**
 * The builders for a session. `session` is read on every call, so a spec can build its fixtures
 * at the top and start its panel in beforeAll: `fixtures(() => ({ t, token }))`.
 */
export function fixtures(session: () => { t: PanelEndpoint; token: string }, options: FixtureOptions = {}): Fixtures {
  const call: Call = (method, path, body) => {
    const { t, token } = session();
    return t.call(method, path, { token, body });
  };
  const typed = (as?: string) => {
    const { t, token } = session();
    return t.client(as ?? token);
  };
  const query = <T>(sql: string, params: unknown[] = []) => session().t.query<T>(sql, params);
  /** The answer's data once `status` is seen; the body rides along so that a refusal shows its {error, field}. */
  const expectStatus = async <D>(
    status: number,
    pending: Promise<{ data?: D; error?: unknown; response: Response }>,
  ): Promise<D> => {
    const response = await answer(pending);
    expect({ status: response.status, body: response.body }).toMatchObject({ status });
    return response.body;
  };
  const createNode: Fixtures['createNode'] = (over = {}) =>
    expectStatus(
      201,
      typed().POST('/api/nodes', { body: { name: `node-${randomSuffix(8)}`, address: '192.0.2.10', ...over } }),
    );
  const createInterface: Fixtures['createInterface'] = (over = {}) =>
    expectStatus(201, typed().POST('/api/interfaces', { body: freshInterface(over) }));
  return {
    call,
    typed: () => typed(),
    createNode,
    createInterface,
    async createNodeWithInterface(over = {}) {
      const node = await createNode(over.node);
      const iface = await createInterface({ nodeId: node.id, ...over.interface });
      return { node, iface };
    },
    createClient: (body) =>
      expectStatus(201, typed().POST('/api/clients', { body: { name: `c-${randomSuffix(8)}`, ...body } })),
    getClient: (id) => expectStatus(200, typed().GET('/api/clients/{id}', { params: { path: { id } } })),
    getNode: (id) => expectStatus(200, typed().GET('/api/nodes/{id}', { params: { path: { id } } })),
    nodeInSync: (id, timeoutMs = 30_000) =>
      waitFor(
        'the node’s agent connected and the node in sync',
        async () => {
          const node = await expectStatus(200, typed().GET('/api/nodes/{id}', { params: { path: { id } } }));
          return node.agent.state === 'connected' && node.inSync ? node : undefined;
        },
        timeoutMs,
        200,
      ),
    createHost: (body) => expectStatus(201, typed().POST('/api/hosts', { body })),
    createToken: (over = {}, as) =>
      expectStatus(201, typed(as).POST('/api/tokens', { body: { name: `token-${randomSuffix(8)}`, ...over } })),
    async createUser(role) {
      const user = {
        id: randomUUID(),
        username: `${role}-${randomSuffix(8)}`,
        password: `pw-${randomSuffix(16)}`,
        role,
      };
      await query(
        `insert into users (id, username, password_hash, role, created_at, updated_at) values ($1, $2, $3, $4, now(), now())`,
        [user.id, user.username, await hashPassword(user.password), role],
      );
      const signedIn = await expectStatus(
        200,
        typed().POST('/api/auth/login', { body: { username: user.username, password: user.password } }),
      );
      return { ...user, token: signedIn.token! };
    },
    async revision(nodeId) {
      const [row] = await query<{ desired_revision: string }>('select desired_revision from nodes where id = $1', [
        nodeId,
      ]);
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
      expect({ status: response.status, body: response.body }).toEqual({
        status,
        body: refusal(field),
      });
      if (message) expect(response.body.error).toMatch(message);
      if (options.unchanged) expect(await options.unchanged()).toEqual(before);
      return response.body;
    },
  };
}
