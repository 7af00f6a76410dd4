import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type ServerOptions, type WebSocket } from 'ws';
import {
  AGENT_LINK_PATH,
  agentMessageSchema,
  MAX_ERROR_TEXT,
  type ControllerMessage,
} from '#libs/contracts/agent-link.js';
import { MAX_AGENT_MESSAGE_BYTES } from '#libs/contracts/link-message-size.js';
import type { WarrenConfig } from '../../config/config.js';
import { AgentCredentialsService } from '../enrolment/agent-credentials.service.js';
import { WARREN_CONFIG } from '../../runtime.js';
import { AgentLinkService } from './agent-link.service.js';
import { LinkInbox, MAX_UNSENT_BYTES, POLICY_VIOLATION } from './link-inbox.js';
import { RefusalLog } from './refusal-log.js';
import { RefusedMessage } from './refused-message.js';

/** How long links get at shutdown to answer the close before they are dropped. */
const CLOSE_GRACE_MS = 2_000;
/** How long a link closed for breaking the bounds gets to read its close before it is dropped. */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * The agents' WebSocket endpoint (`<base>/api/agent/link`). The upgrade is refused unless it
 * carries a node credential; the link then speaks for that node only. Messages of one link are
 * handled one at a time, in order (counter batches must be recorded in sequence), with reading
 * paused meanwhile (link-inbox.ts). A message larger than the contract's largest is refused
 * before it is read (close 1009); one outside the contract's bounds is answered with `error` and
 * logged for its node. A node has at most one link: a new one replaces the old.
 */
@Injectable()
export class AgentLinkGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('agent-link');
  // closeTimeout is ws 8.23's (its @types lag behind).
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_AGENT_MESSAGE_BYTES,
    closeTimeout: CLOSE_TIMEOUT_MS,
  } as ServerOptions);
  private readonly links = new Map<string, WebSocket>();
  private readonly inboxes = new WeakMap<WebSocket, LinkInbox>();
  /** The credential each link was opened with, to check again when the node's credential changes. */
  private readonly credentialOf = new WeakMap<WebSocket, string>();
  private readonly refusals = new RefusalLog();
  /** Whether a link answered (or spoke) since the last ping; one silent interval ends it. */
  private readonly answered = new WeakMap<WebSocket, boolean>();
  private pingTimer?: NodeJS.Timeout;
  private server?: Server;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly credentials: AgentCredentialsService,
    private readonly service: AgentLinkService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.server.on('upgrade', this.onUpgrade);
    this.pingTimer = setInterval(() => this.pingAll(), this.config.intervals.agentPingMs);
    this.pingTimer.unref();
  }

  /**
   * Before the HTTP server closes, not after: closing it waits for every connection, upgraded
   * ones included, and an agent's link never ends by itself (the panel hung on SIGTERM for as
   * long as an agent was connected).
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.pingTimer);
    this.server?.off('upgrade', this.onUpgrade);
    for (const socket of this.wss.clients) socket.close(1001, 'controller shutting down');
    const closed = new Promise<void>((resolve) => this.wss.close(() => resolve()));
    const drop = setTimeout(() => {
      for (const socket of this.wss.clients) socket.terminate();
    }, CLOSE_GRACE_MS);
    await closed;
    clearTimeout(drop);
  }

  /** Nodes with a live link to this controller. */
  connectedNodes(): string[] {
    return [...this.links.keys()];
  }

  /** Cuts a node's link (tests use it to drop a link while counters are in flight). */
  disconnect(nodeId: string): void {
    this.links.get(nodeId)?.terminate();
  }

  /**
   * Checks the node's link, if this controller holds one, against the credential stored now; a
   * link whose credential was replaced (the node re-enrolled) or removed (deleted) ends.
   */
  async recheck(nodeId: string): Promise<void> {
    const ws = this.links.get(nodeId);
    const credential = ws && this.credentialOf.get(ws);
    if (!ws || !credential) return;
    // A database that does not answer keeps the link: it proves nothing about the credential.
    const owner = await this.credentials.authenticate(credential).catch(() => nodeId);
    if (owner !== nodeId && this.links.get(nodeId) === ws) {
      this.logger.log(`node ${nodeId}: its agent credential was replaced or removed; ending the link that used it`);
      ws.terminate();
    }
  }

  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path !== `${this.config.basePath}${AGENT_LINK_PATH}`) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    const credential = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    void (credential ? this.credentials.authenticate(credential) : Promise.resolve(undefined)).then(
      (nodeId) => {
        if (!nodeId) return refuse(socket, 401, 'Unauthorized');
        this.wss.handleUpgrade(request, socket, head, (ws) => {
          this.credentialOf.set(ws, credential!);
          this.attach(nodeId, ws);
        });
      },
      () => refuse(socket, 503, 'Service Unavailable'),
    );
  };

  private attach(nodeId: string, ws: WebSocket): void {
    this.logger.log(`node ${nodeId}: agent linked`);
    this.links.get(nodeId)?.close(4000, 'replaced by a newer link');
    this.links.set(nodeId, ws);
    this.answered.set(ws, true);
    ws.on('pong', () => this.answered.set(ws, true));
    const inbox = new LinkInbox(ws, (data, isBinary) => this.receive(nodeId, ws, data, isBinary));
    this.inboxes.set(ws, inbox);
    ws.on('message', (data, isBinary) => {
      this.answered.set(ws, true);
      if (!inbox.push(data, isBinary)) this.cut(nodeId, ws, 'too many messages in flight');
    });
    ws.on('close', () => this.forget(nodeId, ws));
    ws.on('error', (error) => {
      // A broken link closes and the agent reconnects; one that broke the size bound is worth a word.
      if ((error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
        this.refusals.refused(nodeId, error.message);
    });
  }

  private async receive(nodeId: string, ws: WebSocket, data: RawData, isBinary: boolean): Promise<void> {
    if (ws.readyState !== ws.OPEN) return; // a closed link's backlog: the agent resends what was not acknowledged
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      parsed = JSON.parse(String(data));
    } catch {
      return this.refuse(nodeId, ws, 'messages are JSON text frames');
    }
    const message = agentMessageSchema.safeParse(parsed);
    if (!message.success) {
      const issue = message.error.issues[0];
      return this.refuse(
        nodeId,
        ws,
        `invalid message: ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    try {
      const answer = await this.service.handle(nodeId, message.data);
      if (answer) this.send(nodeId, ws, answer);
    } catch (error) {
      if (error instanceof RefusedMessage) return this.refuse(nodeId, ws, error.message);
      // Not acknowledged: the agent sends it again. The detail stays in the controller's log.
      this.logger.warn(`node ${nodeId}: handling ${message.data.type} failed: ${(error as Error).message}`);
      this.send(nodeId, ws, { type: 'error', error: `${message.data.type} could not be recorded; send it again` });
    }
  }

  private refuse(nodeId: string, ws: WebSocket, reason: string): void {
    const text = reason.length > MAX_ERROR_TEXT ? `${reason.slice(0, MAX_ERROR_TEXT - 1)}…` : reason;
    this.refusals.refused(nodeId, text);
    this.send(nodeId, ws, { type: 'error', error: text });
  }

  /** Answers, unless the agent has stopped reading its answers: such a link is cut instead. */
  private send(nodeId: string, ws: WebSocket, message: ControllerMessage): void {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_UNSENT_BYTES) return this.cut(nodeId, ws, 'not reading its answers');
    ws.send(JSON.stringify(message));
  }

  /**
   * Closes a link that broke the bounds (1008, policy violation). It stops being the node's link
   * at once; its close frame waits behind what it has not read, and closeTimeout drops it if
   * it never reads.
   */
  private cut(nodeId: string, ws: WebSocket, reason: string): void {
    this.refusals.refused(nodeId, `${reason}: link closed`);
    ws.close(POLICY_VIOLATION, reason);
    this.forget(nodeId, ws);
  }

  private forget(nodeId: string, ws: WebSocket): void {
    if (this.links.get(nodeId) !== ws) return; // replaced or cut already: the node's state is someone else's now
    this.links.delete(nodeId);
    this.logger.log(`node ${nodeId}: agent link closed`);
    void (this.inboxes.get(ws)?.drained() ?? Promise.resolve()).then(() => this.service.disconnected(nodeId));
  }

  private pingAll(): void {
    for (const ws of this.links.values()) {
      // A link whose messages the controller is still working through is silent because of us.
      if (this.inboxes.get(ws)?.busy) continue;
      if (!this.answered.get(ws)) {
        ws.terminate();
        continue;
      }
      this.answered.set(ws, false);
      ws.ping();
    }
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
