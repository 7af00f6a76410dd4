import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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

  constructor(@Inject(WARREN_CONFIG) private readonly config: WarrenConfig) {}

  script(): string {
    return readFileSync(join(this.root, 'deploy', 'install-agent.sh'), 'utf8');
  }

  async package(): Promise<Buffer> {
    return (await this.described()).archive;
  }

  /** The package, its SHA-256 and version (a prebuilt WARREN_AGENT_PACKAGE is read afresh each time). */
  async described(): Promise<AgentPackage> {
    if (this.config.agentPackageFile) {
      const archive = await readFile(this.config.agentPackageFile).catch((error: Error) => {
        throw new ApiError(503, `the agent package WARREN_AGENT_PACKAGE cannot be read: ${error.message}`);
      });
      return describe(archive);
    }
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
}

async function describe(archive: Buffer): Promise<AgentPackage> {
  const version = await packageVersion(archive);
  if (!version) throw new ApiError(503, 'the agent package holds no warren-agent/package.json with a version');
  return { archive, sha256: createHash('sha256').update(archive).digest('hex'), version };
}
