import { Controller, Req, StreamableFile } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../../http/api-error.js';
import { Route } from '../../http/route.decorator.js';
import { AgentCredentialsService } from '../enrolment/agent-credentials.service.js';
import { AgentPackageDto } from './agent-package.dto.js';
import { AgentInstallService } from './agent-install.service.js';

/** The one-line install of a tunnel host: the script and the agent package it downloads. */
@Controller()
export class AgentInstallController {
  constructor(
    private readonly install: AgentInstallService,
    private readonly credentials: AgentCredentialsService,
  ) {}

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

  /**
   * The same package, for an agent updating itself (POST /api/nodes/{id}/update): only an agent
   * with a valid node credential (as for its link) fetches it here. No user session: the route
   * table sees it as public, and the credential is checked right here.
   */
  @Route({
    method: 'GET',
    path: 'agent/update/package.tgz',
    group: 'agents',
    summary:
      "The agent's package for a node update, to an agent only (Authorization: Bearer with its node credential); the update job carries its SHA-256",
    public: true,
    response: AgentPackageDto,
    files: ['application/gzip'],
    errors: [401, 503],
    audit: false,
  })
  async updatePackage(@Req() request: FastifyRequest) {
    const credential = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const nodeId = credential ? await this.credentials.authenticate(credential) : undefined;
    if (!nodeId) throw unauthorized('a node credential is required (Authorization: Bearer wnc_…)');
    const { archive } = await this.install.described();
    return new StreamableFile(archive, {
      type: 'application/gzip',
      disposition: 'attachment; filename="warren-agent.tgz"',
      length: archive.length,
    });
  }
}
