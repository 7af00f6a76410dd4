import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AGENT_LINK_PATH, agentMessageSchema, type ControllerMessage } from '#libs/contracts/agent-link.js';
import type { WarrenConfig } from '../../config/config.js';
import { AgentCredentialsService } from '../enrolment/agent-credentials.service.js';
import { WARREN_CONFIG } from '../../runtime.js';
import { AgentLinkService } from './agent-link.service.js';

/** A counter batch of 200,000 peers is about 30 MB of JSON; anything larger is not an agent. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const PING_INTERVAL_MS = 15_000;
/** How long links get at shutdown to answer the close before they are dropped. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The agents' WebSocket endpoint (`<base>/api/agent/link`). The upgrade is refused unless it
 * carries a node credential; the link then speaks for that node only. Messages of one link are
 * handled one at a time, in order (counter batches must be recorded in sequence). A node has at
 * most one link: a new one replaces the old.
 */
@Injectable()
export class AgentLinkGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('agent-link');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly links = new Map<string, WebSocket>();
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
    this.pingTimer = setInterval(() => this.pingAll(), PING_INTERVAL_MS);
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
        this.wss.handleUpgrade(request, socket, head, (ws) => this.attach(nodeId, ws));
      },
      () => refuse(socket, 503, 'Service Unavailable'),
    );
  };

  private attach(nodeId: string, ws: WebSocket): void {
    this.links.get(nodeId)?.close(4000, 'replaced by a newer link');
    this.links.set(nodeId, ws);
    this.answered.set(ws, true);
    ws.on('pong', () => this.answered.set(ws, true));
    let queue = Promise.resolve();
    ws.on('message', (data, isBinary) => {
      this.answered.set(ws, true);
      queue = queue.then(() => this.receive(nodeId, ws, data, isBinary));
    });
    ws.on('close', () => {
      if (this.links.get(nodeId) !== ws) return; // replaced: the newer link is the node's now
      this.links.delete(nodeId);
      void queue.then(() => this.service.disconnected(nodeId));
    });
    ws.on('error', () => undefined); // a broken link closes; the agent reconnects
  }

  private async receive(nodeId: string, ws: WebSocket, data: unknown, isBinary: boolean): Promise<void> {
    if (ws.readyState !== ws.OPEN) return; // a closed link's backlog: the agent resends what was not acknowledged
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      parsed = JSON.parse(String(data));
    } catch {
      return send(ws, { type: 'error', error: 'messages are JSON text frames' });
    }
    const message = agentMessageSchema.safeParse(parsed);
    if (!message.success) {
      const issue = message.error.issues[0];
      return send(ws, { type: 'error', error: `invalid message: ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` });
    }
    try {
      const answer = await this.service.handle(nodeId, message.data);
      if (answer) send(ws, answer);
    } catch (error) {
      // Not acknowledged: the agent sends it again. The detail stays in the controller's log.
      this.logger.warn(`node ${nodeId}: handling ${message.data.type} failed: ${(error as Error).message}`);
      send(ws, { type: 'error', error: `${message.data.type} could not be recorded; send it again` });
    }
  }

  private pingAll(): void {
    for (const ws of this.links.values()) {
      if (!this.answered.get(ws)) {
        ws.terminate();
        continue;
      }
      this.answered.set(ws, false);
      ws.ping();
    }
  }
}

function send(ws: WebSocket, message: ControllerMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
