import WebSocket from 'ws';
import type { AgentMessage, Capabilities, ControllerMessage, EnrolResponse } from '#libs/contracts/agent-link.js';
import type { TestPanel } from './test-panel.js';
import { waitFor } from './wait-for.js';

/**
 * A raw agent link: a WebSocket client speaking the agent's protocol by hand, so a test can play
 * a well-behaved agent or a hostile one (forged ids, out-of-bound numbers, floods). closeLinks()
 * after the tests ends what is still open.
 */

export const CAPABILITIES: Capabilities = {
  root: true,
  wireguardKernel: false,
  wireguardGo: true,
  wg: true,
  nft: true,
  ip: true,
};

export interface OpenLink {
  socket: WebSocket;
  /** Every message the controller sent, in order. */
  messages: ControllerMessage[];
  /** The next message of this type after the ones already taken. */
  next(type: ControllerMessage['type']): Promise<ControllerMessage>;
  send(message: AgentMessage | Record<string, unknown>): void;
  /** Resolves when the link is closed, with the code and reason the controller gave. */
  closed: Promise<{ code: number; reason: string }>;
}

export type LinkAttempt = { status: number } | OpenLink;

const open = new Set<WebSocket>();

/** Opens the agent link with the given Authorization header (or none): the refusal's status, or the open link. */
export function openLink(t: TestPanel, authorization?: string): Promise<LinkAttempt> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${t.api.replace(/^http/, 'ws')}/agent/link`, {
      headers: authorization ? { authorization } : {},
      handshakeTimeout: 10_000,
    });
    open.add(socket);
    const messages: ControllerMessage[] = [];
    let seen = 0;
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      socket.once('close', (code, reason) => done({ code, reason: String(reason) })),
    );
    void closed.then(() => open.delete(socket));
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as ControllerMessage));
    socket.on('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.on('error', (error) => reject(error));
    socket.on('open', () =>
      resolve({
        socket,
        messages,
        closed,
        send: (message) => socket.send(JSON.stringify(message)),
        async next(type) {
          return waitFor(
            `a ${type} from the controller`,
            async () => {
              const index = messages.findIndex((message, i) => i >= seen && message.type === type);
              if (index === -1) return undefined;
              seen = index + 1;
              return messages[index];
            },
            10_000,
            20,
          );
        },
      }),
    );
  });
}

/** Exchanges a node's enrolment secret as its agent would: the node credential and queue access. */
export async function enrol(t: TestPanel, secret: string): Promise<EnrolResponse> {
  const enrolled = await t.call('POST', 'agent/enrol', { body: { secret } });
  if (enrolled.status !== 200)
    throw new Error(`enrolment refused: ${enrolled.status} ${JSON.stringify(enrolled.body)}`);
  return enrolled.body as EnrolResponse;
}

/** The link of a node credential, open (a refusal throws). */
export async function openAs(t: TestPanel, credential: string): Promise<OpenLink> {
  const attempt = await openLink(t, `Bearer ${credential}`);
  if ('status' in attempt) throw new Error(`the link was refused with ${attempt.status}`);
  return attempt;
}

/** The link of a node credential after hello and welcome, as an agent starts one (`gaps`: what its host lacks). */
export async function helloAs(
  t: TestPanel,
  credential: string,
  version = 'test-agent',
  gaps: string[] = [],
): Promise<OpenLink> {
  const link = await openAs(t, credential);
  link.send({ type: 'hello', version, capabilities: CAPABILITIES, gaps, appliedRevision: 0 });
  await link.next('welcome');
  return link;
}

/**
 * A node's agent enrolled (with the node's enrolment secret) and linked: the node is online
 * (its agent connected) until the link closes. Fake agents taking jobs from the node's queue
 * (node-queue.ts) need it where the controller asks whether the agent is linked (checks).
 */
export async function linkAgent(t: TestPanel, secret: string, gaps: string[] = []): Promise<OpenLink> {
  const { credential } = await enrol(t, secret);
  return helloAs(t, credential, 'test-agent', gaps);
}

export function closeLinks(): void {
  for (const socket of open) socket.terminate();
  open.clear();
}
