import { Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../http/api-error.js';
import { buildAgentPackage, installRoot } from './agent-package.js';

/**
 * What a new tunnel host fetches from the panel before it has any credential: the installer
 * script (deploy/install-agent.sh) and the agent's package built from this very install. Both are
 * public and hold no secret; the enrolment secret in the printed command is what admits the host.
 */
@Injectable()
export class AgentInstallService {
  private readonly root = installRoot();
  private packageBuild?: Promise<Buffer | undefined>;

  script(): string {
    return readFileSync(join(this.root, 'deploy', 'install-agent.sh'), 'utf8');
  }

  async package(): Promise<Buffer> {
    // Built once: the build under this process does not change while it runs.
    this.packageBuild ??= buildAgentPackage(this.root);
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
