import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { generatePrefixedSecret, hashSecret, isWellFormedPrefixedSecret } from '#libs/tokens/api-token.js';
import type { EnrolResponse } from '#libs/contracts/agent-link.js';
import { shellQuote } from '../../common/shell-quote.js';
import type { WarrenConfig } from '../../config/config.js';
import { ApiError, conflict, forbidden, notFound, unauthorized } from '../../http/api-error.js';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { PANEL_RUNTIME, WARREN_CONFIG, type PanelRuntime } from '../../runtime.js';
import { AgentCredentialsRepository } from './agent-credentials.repository.js';
import { AgentQueueAccess } from './agent-queue-access.js';

export const ENROLMENT_PREFIX = 'wne_';
export const NODE_CREDENTIAL_PREFIX = 'wnc_';
const ENROLMENT_TTL_MS = 24 * 3600_000;

export interface Enrolment {
  /** The one-time secret (`wne_…`): shown once, exchanged by the agent for its credential. */
  secret: string;
  expiresAt: Date;
  /** What to run on a new host (installs the agent from the panel and enrols it), every value shell-quoted. */
  command: string;
  /** The agent's own command, for a host where the agent is installed already. */
  agentCommand: string;
}

/**
 * Enrolment and node credentials. A node gets a one-time enrolment secret (24 h); its agent
 * exchanges it for the node credential (`wnc_…`) and its own queue access. Both are stored only
 * as SHA-256. A new enrolment of the same node replaces the credential, so a lost or leaked host
 * is cut off by enrolling it again (or deleting the node).
 */
@Injectable()
export class AgentCredentialsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('agent-credentials');
  private readonly queueAccess: AgentQueueAccess;

  constructor(
    private readonly repository: AgentCredentialsRepository,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
    @Inject(PANEL_RUNTIME) private readonly runtime: PanelRuntime,
  ) {
    this.queueAccess = new AgentQueueAccess(config);
  }

  onApplicationBootstrap(): void {
    this.queueAccess.watch(() => this.restoreQueueUsers());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queueAccess.close();
  }

  /**
   * Puts every enrolled node's Redis user back, with the password its agent holds (Redis came
   * back empty: a restart without persistence), after BullMQ's scripts, the only Lua those users
   * may run. Agents are not involved: their connections retry and log in again. Twice: an
   * enrolment running meanwhile stores its hash before it sets its user, so one re-read after the
   * first pass sees every hash that pass may have overwritten.
   */
  async restoreQueueUsers(): Promise<void> {
    const read = () => this.repository.queuePasswordHashes();
    try {
      await this.queueAccess.loadScripts();
      const first = await read();
      await Promise.all([...first].map(([nodeId, hash]) => this.queueAccess.restore(nodeId, hash)));
      const changed = [...(await read())].filter(([nodeId, hash]) => first.get(nodeId) !== hash);
      await Promise.all(changed.map(([nodeId, hash]) => this.queueAccess.restore(nodeId, hash)));
    } catch (error) {
      // The next reconnection tries again; until then agents whose users are gone wait.
      this.logger.warn(`restoring the agents' Redis users failed: ${(error as Error).message}`);
    }
  }

  /**
   * A fresh enrolment secret for the node (an id the caller checked: IdPipe); an earlier unused one
   * stops working. `role` is the caller's when the node exists already: an agent enrolled with the
   * secret receives the node's desired state, its interfaces' private keys and its hops' passwords
   * included, which only the owner is ever shown; so a node holding any is enrolled again by the
   * owner only (else an admin could read every hop password by enrolling an agent of their own).
   */
  async issueEnrolment(nodeId: string, panelUrl: string, role?: UserRole): Promise<Enrolment> {
    const node = await this.repository.node(nodeId);
    if (!node) throw notFound('node not found', 'id');
    if (role !== undefined && role !== 'owner' && node.holdsSecrets)
      throw forbidden(
        'only the owner may enrol a node that holds interfaces or hops again: its agent receives their private keys and passwords',
        'id',
      );
    // The local node's agent gets its credential from the panel at start (a 0600 file on this
    // host); a secret over HTTP would let anyone who runs it take the node's identity from it.
    if (node.isLocal)
      throw conflict(
        "the local node's agent is enrolled by the panel itself at start; it cannot be enrolled over the API",
        'id',
      );
    if (this.queueAccess.kind === 'postgres' && !node.isLocal) {
      throw conflict(
        'this panel keeps its queues in PostgreSQL (no REDIS_URL), which cannot give a remote host access to only its own jobs: set REDIS_URL to enrol remote nodes',
      );
    }
    const secret = generatePrefixedSecret(ENROLMENT_PREFIX);
    const expiresAt = new Date(Date.now() + ENROLMENT_TTL_MS);
    await this.repository.storeEnrolment(nodeId, hashSecret(secret), expiresAt);
    return { secret, expiresAt, ...this.enrolmentCommand(panelUrl, secret) };
  }

  /**
   * What the operator runs on the host: one line that fetches the agent installer from this panel
   * (`GET /api/agent/install.sh`) and runs it with the enrolment arguments; the installer installs
   * the agent from the panel's own package and enrols it. Download, then run: the script runs only
   * once it has arrived whole, and a failed download is the line's exit status (`curl … | bash`
   * would run nothing and exit 0). When the panel serves its self-made certificate the line carries
   * its pins, WARREN_PUBLIC_URL or not: curl's `--pinnedpubkey` (its key) for the download, and
   * `--pin sha256:…` (the certificate) for the installer's downloads and the agent, so the host
   * trusts the panel from the command alone (and nothing else with that name). A proxy with a
   * certificate of its own in front needs the panel to have a real one (or plain HTTP behind it).
   */
  private enrolmentCommand(panelUrl: string, secret: string): { command: string; agentCommand: string } {
    const pinned = Boolean(this.runtime.certificatePin && this.runtime.publicKeyPin && panelUrl.startsWith('https:'));
    const pin = pinned ? ['--pin', this.runtime.certificatePin!] : [];
    // The secret rides in the environment, not the arguments: any user of the host can read a
    // process's arguments while it installs (/proc/<pid>/cmdline), only its owner its environment.
    const secretVar = `WARREN_ENROL_SECRET=${shellQuote(secret)}`;
    const agentCommand = [secretVar, 'warren-agent', '--controller', shellQuote(panelUrl), ...pin].join(' ');
    // A script run by a root shell must not cross the network in the clear (anyone on the path
    // could swap it): a plain-http panel gets no one-line installer, only the agent's own command.
    if (!panelUrl.startsWith('https:')) return { command: agentCommand, agentCommand };
    // -k only beside the key pin: curl then checks the key instead of the (self-made) chain and name.
    const curl = [
      'curl',
      '-fsSL',
      ...(pinned ? ['-k', '--pinnedpubkey', shellQuote(this.runtime.publicKeyPin!)] : []),
      shellQuote(`${panelUrl}/api/agent/install.sh`),
    ];
    // In a subshell: `script` is not left in the operator's shell.
    const run = [
      secretVar,
      'bash',
      '-c',
      '"$script"',
      'install-agent.sh',
      '--controller',
      shellQuote(panelUrl),
      ...pin,
    ];
    return { command: `(script=$(${curl.join(' ')}) && ${run.join(' ')})`, agentCommand };
  }

  /**
   * Exchanges a valid enrolment secret for the node's credential and queue access, once: the
   * secret is consumed in the same statement that finds it, so two agents racing with one secret
   * cannot both win. Claim and queue grant are one transaction: when the queue store cannot be
   * reached the secret stays valid and the node's old credential keeps working (503: try again).
   */
  async enrol(secret: string): Promise<EnrolResponse> {
    if (!isWellFormedPrefixedSecret(secret, ENROLMENT_PREFIX))
      throw unauthorized('invalid or expired enrolment secret');
    const credential = generatePrefixedSecret(NODE_CREDENTIAL_PREFIX);
    try {
      return await this.repository.transaction(async (tx) => {
        const claimed = await this.repository.claimEnrolment(tx, hashSecret(secret), hashSecret(credential));
        if (!claimed) throw unauthorized('invalid or expired enrolment secret');
        const queue = await this.queueAccess.grant(claimed.nodeId, (hash) =>
          this.repository.recordQueuePassword(claimed.nodeId, hash, tx),
        );
        return { ...claimed, credential, queue };
      });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      this.logger.warn(`enrolment could not grant queue access: ${(error as Error).message}`);
      throw new ApiError(503, 'the queue store cannot be reached; the enrolment secret is still valid: try again');
    }
  }

  /**
   * The local node's agent runs beside the controller: it gets a fresh credential at every
   * start, handed over on this host (a 0600 file), never over HTTP.
   */
  async issueLocalCredential(nodeId: string): Promise<EnrolResponse> {
    const credential = generatePrefixedSecret(NODE_CREDENTIAL_PREFIX);
    const nodeName = await this.repository.setCredential(nodeId, hashSecret(credential));
    const queue = await this.queueAccess.grant(nodeId, (hash) => this.repository.recordQueuePassword(nodeId, hash));
    return { nodeId, nodeName: nodeName ?? 'local', credential, queue };
  }

  /** The node a credential belongs to, or undefined. */
  async authenticate(credential: string): Promise<string | undefined> {
    if (!isWellFormedPrefixedSecret(credential, NODE_CREDENTIAL_PREFIX)) return undefined;
    return this.repository.nodeOfCredential(hashSecret(credential));
  }

  /** Called when a node is deleted: its queue user goes with it (rows cascade in the database). */
  async forget(nodeId: string): Promise<void> {
    await this.queueAccess.revoke(nodeId);
  }
}
