import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinOfPem } from '#libs/contracts/certificate-pin.js';
import { anyCertHttps } from '../support/any-cert-https.js';
import { TestNamespace } from '../support/netns.js';
import { killGroup, ROOT, runProgram } from '../support/spawned-process.js';
import { OWNER, startTestPanel, type TestPanel } from '../support/test-panel.js';
import { waitFor } from '../support/wait-for.js';

/**
 * deploy/install-agent.sh as a new host runs it: the enrolment command the panel prints, verbatim,
 * against a real panel with its self-made certificate. The install goes into a temporary root
 * (WARREN_INSTALL_ROOT), without apt (the tools are here) and without systemd (the agent then runs
 * in the foreground); npm installs the agent's package from the panel, preferring its cache.
 */
const BASE_PATH = '/x7k2';
const PINNED_NODE = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies.node;

describe('the enrolment command installs the agent from the panel and enrols it (install-agent.sh)', () => {
  let t: TestPanel;
  let token: string;
  let namespace: TestNamespace;
  const roots: string[] = [];
  const tempRoot = () => {
    const dir = mkdtempSync(join(tmpdir(), 'warren-install-agent-'));
    roots.push(dir);
    return dir;
  };
  const installEnv = (root: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    WARREN_INSTALL_ROOT: root,
    WARREN_INSTALL_SKIP_APT: '1',
    WARREN_INSTALL_SKIP_SYSTEMD: '1',
    WARREN_INSTALL_NPM_FLAGS: '--prefer-offline',
  });
  const api = (path: string, options: { method?: string; body?: unknown } = {}) =>
    anyCertHttps(`${t.panel.origin}${BASE_PATH}/api/${path}`, {
      ...options,
      headers: { authorization: `Bearer ${token}` },
    });

  beforeAll(async () => {
    t = await startTestPanel({ WARREN_TLS: 'on', WARREN_BASE_PATH: BASE_PATH });
    token = (await anyCertHttps(`${t.panel.origin}${BASE_PATH}/api/auth/login`, { method: 'POST', body: OWNER })).body
      .token;
    namespace = await TestNamespace.create();
  }, 120_000);
  afterAll(async () => {
    await namespace?.destroy();
    await t?.stop();
    for (const dir of roots) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('a wrong pin stops the installer before it downloads anything, and says why', async () => {
    const node = (await api('nodes', { method: 'POST', body: { name: 'wrong-pin', address: '192.0.2.11' } })).body;
    const pin = pinOfPem(readFileSync(join(t.config.dataDir, 'tls', 'cert.pem'), 'utf8'));
    const wrong = `sha256:${'0'.repeat(64)}`;
    const command = (node.enrolment.command as string).replace(`--pin ${pin}`, `--pin ${wrong}`);
    expect(command).toContain(wrong);
    const root = tempRoot();
    const run = runProgram('bash', ['-c', command], installEnv(root));
    const { code } = await run.exited;
    expect(code).toBe(3);
    expect(run.stderr).toContain(
      `presents a certificate whose pin is ${pin}, not ${wrong}: refusing to download anything`,
    );
    expect(existsSync(join(root, 'opt', 'warren-agent'))).toBe(false);
  });

  test('unknown options and missing values are refused with exit code 2', async () => {
    const script = join(ROOT, 'deploy', 'install-agent.sh');
    const unknown = runProgram(
      'bash',
      [script, '--controller', 'https://127.0.0.1:1', '--frobnicate'],
      installEnv(tempRoot()),
    );
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.stderr).toContain('unknown option --frobnicate');
    const missing = runProgram('bash', [script, '--enrol', 'wne_x'], installEnv(tempRoot()));
    expect((await missing.exited).code).toBe(2);
    expect(missing.stderr).toContain('--controller URL is required');
  });

  test('the printed command, run verbatim: installs the pinned Node and the agent, writes its settings, and the node connects', async () => {
    const node = (await api('nodes', { method: 'POST', body: { name: 'installed', address: '192.0.2.12' } })).body;
    const pin = pinOfPem(readFileSync(join(t.config.dataDir, 'tls', 'cert.pem'), 'utf8'));
    const panelUrl = `${t.panel.origin}${BASE_PATH}`;
    expect(node.enrolment.command).toMatch(
      new RegExp(
        `^curl -fsSL -k --pinnedpubkey 'sha256//[A-Za-z0-9+/=]{44}' '${panelUrl}/api/agent/install.sh' \\| WARREN_ENROL_SECRET='${node.enrolment.secret}' bash -s -- --controller '${panelUrl}' --pin ${pin}$`,
      ),
    );
    const root = tempRoot();
    // --netns: the test's agent applies inside a namespace of its own, not on this machine.
    const install = runProgram(
      'bash',
      ['-c', `${node.enrolment.command} --netns ${namespace.name}`],
      installEnv(root),
      { group: true },
    );
    try {
      await waitFor(
        'the installed agent connected',
        async () => {
          if (install.child.exitCode !== null)
            throw new Error(`the installer exited (${install.child.exitCode}):\n${install.stdout}\n${install.stderr}`);
          const view = (await api(`nodes/${node.id}`)).body;
          return view.agent.state === 'connected' ? true : undefined;
        },
        600_000,
      );
    } finally {
      await killGroup(install);
    }
    expect(install.stdout).toContain('install-agent.sh: agent installed in');
    expect(install.stdout).toContain(`(v${PINNED_NODE})`);
    const envFile = join(root, 'etc', 'warren', 'agent.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const settings = readFileSync(envFile, 'utf8');
    expect(settings).toContain(`WARREN_CONTROLLER_URL=${panelUrl}\n`);
    expect(settings).toContain(`WARREN_CONTROLLER_PIN=${pin}\n`);
    expect(settings).not.toContain(node.enrolment.secret);
    expect(statSync(join(root, 'var', 'lib', 'warren-agent', 'agent.json')).mode & 0o777).toBe(0o600);
  }, 660_000);
});
