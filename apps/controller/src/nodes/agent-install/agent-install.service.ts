import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WarrenConfig } from '../../config/config.js';
import { ApiError } from '../../http/api-error.js';
import { WARREN_CONFIG } from '../../runtime.js';
import { buildAgentPackage, installRoot, packageVersion } from './agent-package.js';

/** The package with what a node update's job carries about it. */
export interface AgentPackage {
  archive: Buffer;
  sha256: string;
  /** Its package.json's version: what an agent installed from it reports. */
  version: string;
}

/**
 * What a new tunnel host fetches from the panel before it has any credential: the installer
 * script (deploy/install-agent.sh) and the agent's package built from this very install. Both are
 * public and hold no secret; the enrolment secret in the printed command is what admits the host.
 * The same package is what a node update installs (docs/agents.md, "Updating nodes").
 */
@Injectable()
export class AgentInstallService {
  private readonly root = installRoot();
  private packageBuild?: Promise<AgentPackage | undefined>;
  /** The prebuilt package as last read, under the path, time and size it had then. */
  private prebuilt?: { key: string; described: Promise<AgentPackage> };

  constructor(@Inject(WARREN_CONFIG) private readonly config: WarrenConfig) {}

  script(): string {
    return readFileSync(join(this.root, 'deploy', 'install-agent.sh'), 'utf8');
  }

  async package(): Promise<Buffer> {
    return (await this.described()).archive;
  }

  /**
   * The package, its SHA-256 and version. A prebuilt WARREN_AGENT_PACKAGE is read (and hashed)
   * again only when its modification time or size changed: the route serving it is public, and
   * every download re-reading a file of many megabytes would let anyone keep the disk busy.
   */
  async described(): Promise<AgentPackage> {
    if (this.config.agentPackageFile) return this.prebuiltPackage(this.config.agentPackageFile);
    // Built once: the build under this process does not change while it runs.
    this.packageBuild ??= buildAgentPackage(this.root).then((archive) => archive && describe(archive));
    const built = await this.packageBuild.catch((error: Error) => {
      this.packageBuild = undefined;
      throw error;
    });
    if (!built) {
      this.packageBuild = undefined;
      throw new ApiError(503, 'the agent is not built on this panel (npm run build): its package cannot be served');
    }
    return built;
  }

  private async prebuiltPackage(path: string): Promise<AgentPackage> {
    const unreadable = (error: Error) => {
      throw new ApiError(503, `the agent package WARREN_AGENT_PACKAGE cannot be read: ${error.message}`);
    };
    const file = await stat(path).catch(unreadable);
    const key = `${path}\0${file.mtimeMs}\0${file.size}`;
    if (this.prebuilt?.key !== key) {
      const described = readFile(path).catch(unreadable).then(describe);
      this.prebuilt = { key, described };
      // A failed read is not kept: the next download tries again.
      described.catch(() => {
        if (this.prebuilt?.described === described) this.prebuilt = undefined;
      });
    }
    return this.prebuilt.described;
  }
}

async function describe(archive: Buffer): Promise<AgentPackage> {
  const version = await packageVersion(archive);
  if (!version) throw new ApiError(503, 'the agent package holds no warren-agent/package.json with a version');
  return { archive, sha256: createHash('sha256').update(archive).digest('hex'), version };
}
