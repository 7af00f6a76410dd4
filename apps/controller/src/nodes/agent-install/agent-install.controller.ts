import { Controller, StreamableFile } from '@nestjs/common';
import { Route } from '../../http/route.decorator.js';
import { AgentPackageDto } from './agent-package.dto.js';
import { AgentInstallService } from './agent-install.service.js';

/** The one-line install of a tunnel host: the script and the agent package it downloads. */
@Controller()
export class AgentInstallController {
  constructor(private readonly install: AgentInstallService) {}

  @Route({
    method: 'GET',
    path: 'agent/install.sh',
    group: 'agents',
    summary: 'The agent installer (deploy/install-agent.sh) that the enrolment command pipes to bash on a new host',
    public: true,
    response: AgentPackageDto,
    files: ['text/x-shellscript'],
  })
  script() {
    const text = Buffer.from(this.install.script());
    return new StreamableFile(text, { type: 'text/x-shellscript; charset=utf-8', length: text.length });
  }

  @Route({
    method: 'GET',
    path: 'agent/package.tgz',
    group: 'agents',
    summary:
      "The agent's package built from this panel (its dist, package.json and lock file), which install.sh installs with npm",
    public: true,
    response: AgentPackageDto,
    files: ['application/gzip'],
    errors: [503],
  })
  async package() {
    const archive = await this.install.package();
    return new StreamableFile(archive, {
      type: 'application/gzip',
      disposition: 'attachment; filename="warren-agent.tgz"',
      length: archive.length,
    });
  }
}
