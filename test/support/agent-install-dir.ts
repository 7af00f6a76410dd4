import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { buildAgentPackage } from '../../apps/controller/src/nodes/agent-install/agent-package.js';
import { ROOT } from './spawned-process.js';

/**
 * The agent's package as the panel builds it from this checkout's dist/ (npm run build), with
 * another version string when given: the same code reporting another version, to update between.
 */
export async function agentPackage(version?: string): Promise<Buffer> {
  const archive = await buildAgentPackage(ROOT, version ? { version } : {});
  if (!archive) throw new Error('the agent is not built: npm run build first');
  return archive;
}

/**
 * An install directory in the releases layout deploy/install-agent.sh makes: the package of
 * `version` unpacked in releases/<version>/, `current` pointing at it. Its node_modules is this
 * checkout's (what `npm install` would bring: the same lock file).
 */
export async function agentInstallDir(version: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'warren-agent-install-'));
  const release = join(dir, 'releases', version);
  mkdirSync(release, { recursive: true });
  const file = join(dir, 'package.tgz');
  writeFileSync(file, await agentPackage(version));
  await tar.x({ file, cwd: release, strip: 1 });
  rmSync(file);
  symlinkSync(join(ROOT, 'node_modules'), join(release, 'node_modules'));
  symlinkSync(join('releases', version), join(dir, 'current'));
  return dir;
}

/** What `current` points at (`releases/<version>`). */
export const currentRelease = (dir: string) => readlinkSync(join(dir, 'current'));

/**
 * A package of `version` whose agent starts and never links (it waits forever, as an agent stuck
 * before its link would): what the launcher must roll back.
 */
export async function neverLinkingPackage(version: string): Promise<Buffer> {
  const stage = mkdtempSync(join(tmpdir(), 'warren-agent-broken-'));
  try {
    return await repackedNeverLinking(stage, version);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function repackedNeverLinking(stage: string, version: string): Promise<Buffer> {
  writeFileSync(join(stage, 'package.tgz'), await agentPackage(version));
  await tar.x({ file: join(stage, 'package.tgz'), cwd: stage });
  const main = join(stage, 'warren-agent/dist/apps/agent/src/main.js');
  readFileSync(main); // it is there, and is replaced
  writeFileSync(main, 'setInterval(() => undefined, 60_000);\n');
  const chunks: Buffer[] = [];
  const stream = tar.create({ gzip: true, cwd: stage, portable: true }, ['warren-agent']);
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve, reject) => {
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  return Buffer.concat(chunks);
}
