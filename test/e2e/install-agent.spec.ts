import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinOfPem } from '#libs/contracts/certificate-pin.js';
import { anyCertHttps } from '../support/any-cert-https.js';
import { TestNamespace } from '../support/netns.js';
import { freePort } from '../../libs/net/free-port.js';
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
/** The printed command with more installer arguments (it ends with the subshell's `)`). */
const withArguments = (command: string, more: string) => command.replace(/\)$/, ` ${more})`);

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

  /** A directory of stand-in programs, put first on PATH: `name` runs `body` (a shell script). */
  const stubs = (programs: Record<string, string>) => {
    const dir = tempRoot();
    for (const [name, body] of Object.entries(programs)) {
      writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(dir, name), 0o755);
    }
    return `${dir}:${process.env.PATH}`;
  };
  const createNode = async (name: string) =>
    (await api('nodes', { method: 'POST', body: { name, address: '192.0.2.13' } })).body as {
      enrolment: { command: string };
    };

  test("a download that fails is the command's exit status, not a silent 0", async () => {
    const node = await createNode('download-fails');
    const closed = await freePort();
    const command = node.enrolment.command.replaceAll(new URL(t.panel.origin).port, String(closed));
    expect(command).toContain(`:${closed}/`);
    const root = tempRoot();
    const run = runProgram('bash', ['-c', command], installEnv(root));
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.stderr).toMatch(/curl: \(7\)/);
    expect(readdirSync(root)).toEqual([]);
  });

  test('a host where systemd is not running is told so before anything is installed, and what to do', async () => {
    const node = await createNode('no-systemd');
    const root = tempRoot();
    // systemctl is there (as in a container with the package installed); systemd does not run.
    const env: NodeJS.ProcessEnv = { ...installEnv(root), PATH: stubs({ systemctl: 'exit 0' }) };
    delete env.WARREN_INSTALL_SKIP_SYSTEMD;
    const run = runProgram('bash', ['-c', node.enrolment.command], env);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr).toContain('systemd is not running on this host');
    expect(run.stderr).toContain('WARREN_INSTALL_SKIP_SYSTEMD=1');
    expect(run.stdout).not.toContain('downloading the agent');
    expect(readdirSync(root)).toEqual([]);
  });

  test('a failed install removes what it had created and says so', async () => {
    const node = await createNode('npm-fails');
    const root = tempRoot();
    const env = { ...installEnv(root), PATH: stubs({ npm: 'echo "npm ERR! stand-in failure" >&2; exit 1' }) };
    const run = runProgram('bash', ['-c', node.enrolment.command], env);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr).toContain('npm install failed');
    expect(run.stderr).toContain(`removed what this run had created: ${join(root, 'opt', 'warren-agent')}`);
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
        `^\\(script=\\$\\(curl -fsSL -k --pinnedpubkey 'sha256//[A-Za-z0-9+/=]{44}' '${panelUrl}/api/agent/install.sh'\\) && WARREN_ENROL_SECRET='${node.enrolment.secret}' bash -c "\\$script" install-agent.sh --controller '${panelUrl}' --pin ${pin}\\)$`,
      ),
    );
    const root = tempRoot();
    // --netns: the test's agent applies inside a namespace of its own, not on this machine.
    const install = runProgram(
      'bash',
      ['-c', withArguments(node.enrolment.command, `--netns ${namespace.name}`)],
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
