import type { RawData, WebSocket } from 'ws';
import { MAX_AGENT_MESSAGE_BYTES } from '#libs/contracts/link-message-size.js';

/**
 * What one link may have received and not yet handled. Reading is paused while anything waits,
 * so the agent's further frames stay in its socket (TCP pushes back on it), and only what ws had
 * already read when the pause began can still arrive: at most one message of the largest size
 * the contract allows plus one read's worth of small ones. More than that is a link ws is not
 * pausing, and it is closed rather than let grow.
 */
export const MAX_QUEUED_BYTES = MAX_AGENT_MESSAGE_BYTES + 1024 * 1024;
export const MAX_QUEUED_MESSAGES = 20_000;
/**
 * Answers the controller has written that the agent has not read. A link's answers are tiny
 * (acks, errors); this much unread means the agent stopped reading while it goes on sending.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** WebSocket close code 1008: policy violation. */
export const POLICY_VIOLATION = 1008;

/**
 * One link's messages, handled one at a time and in order (counter batches must be recorded in
 * sequence), with the reading paused while any wait: a flooding or slow agent holds up its own
 * link only. `push` returns false when the link broke the bounds; the caller closes it.
 */
export class LinkInbox {
  private queued = 0;
  private queuedBytes = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    private readonly handle: (data: RawData, isBinary: boolean) => Promise<void>,
  ) {}

  /** True while a message is being handled or waits (the link's silence is then ours, not the agent's). */
  get busy(): boolean {
    return this.queued > 0;
  }

  push(data: RawData, isBinary: boolean): boolean {
    const bytes = byteLength(data);
    if (this.queued + 1 > MAX_QUEUED_MESSAGES || this.queuedBytes + bytes > MAX_QUEUED_BYTES) return false;
    this.queued++;
    this.queuedBytes += bytes;
    if (!this.ws.isPaused) this.ws.pause();
    this.tail = this.tail
      .then(() => this.handle(data, isBinary))
      .finally(() => {
        this.queued--;
        this.queuedBytes -= bytes;
        if (this.queued === 0 && this.ws.readyState === this.ws.OPEN) this.ws.resume();
      });
    return true;
  }

  /** Resolves when everything pushed so far has been handled. */
  drained(): Promise<void> {
    return this.tail;
  }
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}
