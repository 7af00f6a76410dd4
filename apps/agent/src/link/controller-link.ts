import { Logger } from '@nestjs/common';
import WebSocket from 'ws';
import {
  AGENT_LINK_PATH,
  controllerMessageSchema,
  type AgentMessage,
  type ControllerMessage,
} from '#libs/contracts/agent-link.js';
import { MAX_CONTROLLER_MESSAGE_BYTES } from '#libs/contracts/link-message-size.js';
import { tlsOptions, type ControllerTrust } from './controller-trust.js';

export interface LinkEvents {
  /** The link is up: return the hello to send. */
  hello(): Promise<Extract<AgentMessage, { type: 'hello' }>>;
  /** The controller answered hello. */
  welcome(message: Extract<ControllerMessage, { type: 'welcome' }>): void;
  ack(seq: number): void;
  /** The controller refused the link's credential (401). */
  refused?(): void;
}

const HEARTBEAT_MS = 10_000;
const MAX_BACKOFF_MS = 15_000;
/** The default for `silenceMs` (the agent's config sets it: WARREN_AGENT_LINK_SILENCE_MS). */
const SILENCE_MS = 45_000;

/**
 * The agent's one WebSocket to the controller, kept up for the agent's life: reconnects with
 * backoff (with jitter, so a restarted controller is not hit by every agent in one instant),
 * says hello first on every connection, and sends heartbeats. Messages sent while it is down are
 * not queued: everything that matters (counters, applied revision) is resent after `welcome`.
 */
export class ControllerLink {
  private readonly logger = new Logger('link');
  private socket?: WebSocket;
  private ready = false;
  private stopped = false;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private livenessTimer?: NodeJS.Timeout;
  /** When the current connection last brought anything (a message, a ping, a pong). */
  private heardAt = 0;
  /** Why the current connection attempt failed (its last error), for the outage's one warning. */
  private failure?: string;
  /** Since when the agent has no link to the controller, once that outage has been reported. */
  private outageSince?: number;

  constructor(
    private readonly controllerUrl: string,
    private readonly credential: string,
    private readonly events: LinkEvents,
    private readonly trust?: ControllerTrust,
    /**
     * A link silent this long is dead. Without it a half-open connection (the path drops packets,
     * no FIN or RST arrives) looked alive until TCP gave up, about 15 minutes later: counters
     * and applied revisions went nowhere meanwhile, while the controller had long dropped it.
     */
    private readonly silenceMs = SILENCE_MS,
  ) {}

  /** True once the controller has answered hello on the current connection. */
  get isReady(): boolean {
    return this.ready;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    clearInterval(this.livenessTimer);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1000, 'agent stopping');
      setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  /** Sends when the link is ready; returns false otherwise (the caller resends after welcome). */
  send(message: AgentMessage): boolean {
    if (!this.ready || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  private connect(): void {
    if (this.stopped) return;
    const url = `${this.controllerUrl.replace(/^http/, 'ws')}${AGENT_LINK_PATH}`;
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${this.credential}` },
      handshakeTimeout: 10_000,
      // The controller's largest message, worked out from the contract: anything larger is not it.
      maxPayload: MAX_CONTROLLER_MESSAGE_BYTES,
      ...tlsOptions(this.trust),
    });
    this.socket = socket;
    socket.on('open', () => {
      this.attempt = 0;
      void this.events
        .hello()
        .then((hello) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(hello)))
        .catch((error: Error) => {
          this.logger.error(`cannot say hello: ${error.message}`);
          socket.terminate();
        });
      clearInterval(this.heartbeatTimer);
      this.heartbeatTimer = setInterval(() => this.send({ type: 'heartbeat', at: Date.now() }), HEARTBEAT_MS);
      this.heartbeatTimer.unref();
      this.watchLiveness(socket);
    });
    socket.on('message', (data) => {
      this.heardAt = Date.now();
      this.receive(String(data));
    });
    socket.on('ping', () => (this.heardAt = Date.now()));
    socket.on('pong', () => (this.heardAt = Date.now()));
    socket.on('unexpected-response', (_request, response) => {
      this.failure = `refused: HTTP ${response.statusCode}`;
      this.logger.warn(
        `the controller refused the link: HTTP ${response.statusCode}${response.statusCode === 401 ? ' (credential not valid: enrol this host again)' : ''}`,
      );
      if (response.statusCode === 401) this.events.refused?.();
    });
    socket.on('error', (error) => {
      this.failure = error.message;
      this.logger.debug?.(`link error: ${error.message}`);
    });
    socket.on('close', (code, reason) => {
      const wasReady = this.ready;
      this.ready = false;
      clearInterval(this.heartbeatTimer);
      clearInterval(this.livenessTimer);
      if (this.socket !== socket || this.stopped) return;
      this.reportOutage(
        wasReady,
        this.failure ?? `closed by the controller (${code}${reason.length ? ` ${String(reason)}` : ''})`,
      );
      this.failure = undefined;
      this.scheduleReconnect();
    });
  }

  /**
   * Pings the controller three times per `silenceMs` (its pong proves the path both ways) and
   * ends the connection when nothing at all came back for `silenceMs`: terminate(), not close(),
   * since a close handshake cannot cross a dead path. The close handler then relinks.
   */
  private watchLiveness(socket: WebSocket): void {
    this.heardAt = Date.now();
    clearInterval(this.livenessTimer);
    this.livenessTimer = setInterval(
      () => {
        if (this.socket !== socket || socket.readyState !== WebSocket.OPEN) return;
        const silentMs = Date.now() - this.heardAt;
        if (silentMs >= this.silenceMs) {
          this.failure = `nothing heard from the controller for ${Math.round(silentMs / 1000)} s (a dead connection)`;
          socket.terminate();
          return;
        }
        socket.ping();
      },
      Math.max(200, Math.floor(this.silenceMs / 3)),
    );
    this.livenessTimer.unref();
  }

  private receive(text: string): void {
    let message: ControllerMessage;
    try {
      message = controllerMessageSchema.parse(JSON.parse(text));
    } catch {
      this.logger.warn('the controller sent a message this agent does not understand');
      return;
    }
    switch (message.type) {
      case 'welcome':
        this.ready = true;
        if (this.outageSince !== undefined)
          this.logger.log(
            `the link to the controller is back after ${Math.round((Date.now() - this.outageSince) / 1000)} s`,
          );
        this.outageSince = undefined;
        this.logger.log(`linked to the controller as node ${message.nodeId}`);
        this.events.welcome(message);
        break;
      case 'ack':
        this.events.ack(message.seq);
        break;
      case 'error':
        this.logger.warn(`controller: ${message.error}`);
        break;
    }
  }

  /**
   * One warning per outage, with its reason: when a working link drops, or when the first attempt
   * (at start, or after a loss not yet reported) fails. Later failed attempts of the same outage
   * stay at debug; `welcome` ends the outage and says so.
   */
  private reportOutage(wasReady: boolean, reason: string): void {
    if (this.outageSince !== undefined && !wasReady) return;
    this.outageSince = Date.now();
    this.logger.warn(
      wasReady
        ? `lost the link to the controller: ${reason}; reconnecting`
        : `cannot reach the controller at ${this.controllerUrl}: ${reason}; retrying`,
    );
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempt++);
    const delay = base / 2 + Math.random() * (base / 2);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }
}
