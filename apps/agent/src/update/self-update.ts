import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as tar from 'tar';
import {
  AGENT_UPDATE_PACKAGE_PATH,
  UPDATE_FILES,
  type NodeUpdateJob,
  type NodeUpdateResult,
} from '#libs/contracts/node-update.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import { tlsOptions, type ControllerTrust } from '../link/controller-trust.js';

const run = promisify(execFile);

/** A package larger than this is not an agent (the build is a few MB): the download stops. */
const MAX_PACKAGE_BYTES = 256 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;
/** `npm ci` when the new release's lock file differs from the running one's. */
const NPM_TIMEOUT_MS = 600_000;
/** A version names a directory: nothing that could climb out of releases/. */
const SAFE_VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]*$/;

export interface SelfUpdateContext {
  installDir: string;
  controllerUrl: string;
  credential: string;
  trust?: ControllerTrust;
  runningVersion: string;
}

/**
 * Installs the panel's package beside the running release and switches `current` to it
 * (docs/agents.md, "Updating nodes"). Nothing is switched unless every step before it succeeded:
 * the download hashes to the job's sha256, the package says the job's version and holds an agent,
 * its dependencies are in place. The pending marker is written before the switch, so the launcher
 * (bin/warren-agent-launcher) watches the new agent from its first start and rolls it back when
 * it does not link. The caller exits with RESTART_EXIT_CODE afterwards.
 */
export async function installBeside(context: SelfUpdateContext, job: NodeUpdateJob): Promise<NodeUpdateResult> {
  const { installDir } = context;
  if (!SAFE_VERSION.test(job.version) || job.version.length > 64)
    throw new Error(`version ${JSON.stringify(job.version)} cannot name a release directory`);
  const current = join(installDir, 'current');
  const previous = readlinkSync(current);
  const releases = join(installDir, 'releases');
  const target = join(releases, job.version);
  if (join(installDir, previous) === target) throw new Error(`this agent already runs ${job.version}`);
  if (existsSync(join(installDir, UPDATE_FILES.pending)))
    throw new Error('an update is already pending (its launcher has not settled it yet)');

  const staging = join(releases, `.staging-${randomBytes(6).toString('hex')}`);
  const download = `${staging}.tgz`;
  mkdirSync(releases, { recursive: true });
  try {
    const sha256 = await downloadTo(context, download);
    if (sha256 !== job.sha256)
      throw new Error(
        `checksum mismatch: the package downloaded hashes to ${sha256}, not ${job.sha256}: nothing was switched`,
      );
    mkdirSync(staging);
    await tar.x({ file: download, cwd: staging, strip: 1, preserveOwner: false });
    const manifest = JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as { version?: string };
    if (manifest.version !== job.version)
      throw new Error(`the package is version ${manifest.version}, not ${job.version}: nothing was switched`);
    if (!existsSync(join(staging, 'dist/apps/agent/src/main.js')))
      throw new Error('the package holds no agent (dist/apps/agent/src/main.js): nothing was switched');
    await installDependencies(join(installDir, previous), staging);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);

    // Marker first, switch second: a crash between them leaves a pending update on the old
    // release, which the launcher settles (the old agent links: nothing to roll back).
    rmSync(join(installDir, UPDATE_FILES.linked), { force: true });
    writeFileAtomic(
      join(installDir, UPDATE_FILES.pending),
      `version=${job.version}\nprevious=${previous}\ndeadline=${job.linkDeadlineSeconds}\n`,
      { durable: true },
    );
    const link = join(installDir, `current.${randomBytes(4).toString('hex')}`);
    symlinkSync(join('releases', job.version), link);
    renameSync(link, current);
    return { from: context.runningVersion, to: job.version };
  } finally {
    rmSync(download, { force: true });
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The new release's node_modules: the same lock file as the running release's (the usual case:
 * the panel's pins move rarely) takes hard links of its tree, cheap and offline; another lock
 * file runs `npm ci --omit=dev` (the host's npm, as the installer does).
 */
async function installDependencies(running: string, release: string): Promise<void> {
  const lock = (dir: string) =>
    existsSync(join(dir, 'package-lock.json')) ? readFileSync(join(dir, 'package-lock.json')) : null;
  const before = lock(running);
  const after = lock(release);
  if (before && after && before.equals(after) && existsSync(join(running, 'node_modules'))) {
    await run('cp', ['-a', '--link', join(running, 'node_modules'), join(release, 'node_modules')]);
    return;
  }
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: release,
    timeout: NPM_TIMEOUT_MS,
  }).catch((error: Error & { stderr?: string }) => {
    throw new Error(`npm ci in the new release failed: ${(error.stderr ?? error.message).trim().slice(-300)}`);
  });
}

/** Downloads the panel's package with the node credential, hashing it on the way; its sha256. */
function downloadTo(context: SelfUpdateContext, file: string): Promise<string> {
  const url = new URL(`${context.controllerUrl}/api/${AGENT_UPDATE_PACKAGE_PATH}`);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: { authorization: `Bearer ${context.credential}` },
        timeout: DOWNLOAD_TIMEOUT_MS,
        ...tlsOptions(context.trust),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`the panel answered ${res.statusCode} for its package`));
          return;
        }
        const hash = createHash('sha256');
        const out = createWriteStream(file, { mode: 0o600 });
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_PACKAGE_BYTES)
            req.destroy(new Error(`the package is larger than ${MAX_PACKAGE_BYTES} bytes`));
          hash.update(chunk);
        });
        res.pipe(out);
        out.on('finish', () => resolve(hash.digest('hex')));
        out.on('error', reject);
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the package did not arrive within ${DOWNLOAD_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Tells the launcher the panel welcomed this agent's link (it has the hello with this version). */
export function markLinked(installDir: string, version: string): void {
  writeFileAtomic(join(installDir, UPDATE_FILES.linked), version);
}
