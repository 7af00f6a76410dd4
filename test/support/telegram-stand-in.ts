import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Telegram Bot API (api.telegram.org is unreachable from the test
 * machine: docs/testing.md). The panel's bot is pointed at it with WARREN_TELEGRAM_API_ROOT and
 * talks to it exactly as to Telegram: `POST /bot<token>/<method>` with JSON, or multipart for
 * files. It answers getMe, long-polls getUpdates from a queue the test fills (`message()`), and
 * records every other call (sendMessage, sendDocument, sendPhoto...) with its parameters and
 * files. `mode` simulates an outage: `error` answers every call 500, `hang` never answers.
 */

export interface SentFile {
  name: string;
  bytes: Buffer;
}

export interface BotApiCall {
  token: string;
  method: string;
  /** The parameters; numeric strings of a multipart form (chat_id) read as numbers. */
  params: Record<string, unknown>;
  files: Record<string, SentFile>;
}

export interface TelegramUser {
  id: number;
  first_name?: string;
  language_code?: string;
}

export type StandInMode = 'normal' | 'error' | 'hang';

export interface TelegramStandIn {
  /** What WARREN_TELEGRAM_API_ROOT is set to. */
  apiRoot: string;
  /** Every call but getMe and getUpdates, in order. */
  calls: BotApiCall[];
  /** How many getUpdates calls arrived (answered or not). */
  polls: number;
  readonly mode: StandInMode;
  /** Starts or ends an outage; leaving `hang` drops the calls it held (their sockets close). */
  setMode(mode: StandInMode): void;
  /** Queues a text message from `from` in their private chat (or in `chatId`); answers its update id. */
  message(from: TelegramUser, text: string, chatId?: number): number;
  /** The calls sent to one chat. */
  sentTo(chatId: number): BotApiCall[];
  close(): Promise<void>;
}

export const STAND_IN_BOT = {
  id: 7000000001,
  is_bot: true,
  first_name: 'Warren test bot',
  username: 'warren_test_bot',
};

export async function startTelegramStandIn(): Promise<TelegramStandIn> {
  const updates: { update_id: number; message: unknown }[] = [];
  const waiting = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  let nextUpdate = 1;
  let nextMessage = 1;

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  async function readParams(request: IncomingMessage): Promise<Pick<BotApiCall, 'params' | 'files'>> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const type = request.headers['content-type'] ?? '';
    const params: Record<string, unknown> = {};
    const files: Record<string, SentFile> = {};
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(body, { headers: { 'content-type': type } }).formData();
      for (const [key, value] of form.entries()) {
        if (typeof value === 'string') params[key] = /^-?\d+$/.test(value) ? Number(value) : value;
        else files[key] = { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
      }
      // grammY names an attached file `attach://<id>` in the parameter it fills.
      for (const [key, value] of Object.entries(params)) {
        const id = typeof value === 'string' && /^attach:\/\/(.+)$/.exec(value)?.[1];
        if (id && files[id]) files[key] = files[id];
      }
    } else if (body.length > 0) Object.assign(params, JSON.parse(body.toString('utf8')));
    return { params, files };
  }

  const server = createServer((request, response) => {
    void (async () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(request.url ?? '/', 'http://x').pathname);
      if (!match) return answer(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const [, token, method] = match;
      if (method === 'getUpdates') standIn.polls++;
      if (standIn.mode === 'hang') {
        hanging.add(response);
        return;
      }
      if (standIn.mode === 'error')
        return answer(response, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
      const { params, files } = await readParams(request);
      if (method === 'getMe') return answer(response, 200, { ok: true, result: STAND_IN_BOT });
      if (method === 'getUpdates') {
        const offset = Number(params.offset ?? 0);
        // As Telegram does: an offset confirms every update before it, which is then forgotten.
        while (updates.length > 0 && updates[0].update_id < offset) updates.shift();
        const pending = () => updates.filter((update) => update.update_id >= offset);
        if (pending().length === 0) {
          // Long polling: held until an update arrives or the poll's timeout passes.
          await new Promise<void>((resolve) => {
            const wake = () => {
              waiting.delete(wake);
              clearTimeout(timer);
              resolve();
            };
            const timer = setTimeout(wake, Math.min(Number(params.timeout ?? 0), 30) * 1000);
            waiting.add(wake);
            response.on('close', wake);
          });
        }
        return answer(response, 200, { ok: true, result: pending() });
      }
      standIn.calls.push({ token, method, params, files });
      const chat = { id: Number(params.chat_id), type: Number(params.chat_id) > 0 ? 'private' : 'group' };
      return answer(response, 200, {
        ok: true,
        result: { message_id: nextMessage++, date: Math.floor(Date.now() / 1000), chat, text: params.text },
      });
    })().catch((error: Error) => answer(response, 500, { ok: false, error_code: 500, description: error.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standIn: TelegramStandIn = {
    apiRoot: `http://127.0.0.1:${port}`,
    calls: [],
    polls: 0,
    mode: 'normal',
    setMode(mode) {
      (standIn as { mode: StandInMode }).mode = mode;
      // A poll held from before answers now (empty), so the next one meets the new mode at once.
      for (const wake of [...waiting]) wake();
      if (mode === 'hang') return;
      for (const response of hanging) response.destroy();
      hanging.clear();
    },
    message(from, text, chatId = from.id) {
      const update_id = nextUpdate++;
      const command = /^\/\w+/.exec(text)?.[0];
      updates.push({
        update_id,
        message: {
          message_id: nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat:
            chatId > 0
              ? { id: chatId, type: 'private', first_name: from.first_name ?? 'Test' }
              : { id: chatId, type: 'group', title: 'Operators' },
          from: { is_bot: false, first_name: 'Test', ...from },
          text,
          ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command.length }] } : {}),
        },
      });
      for (const wake of [...waiting]) wake();
      return update_id;
    },
    sentTo: (chatId) => standIn.calls.filter((call) => call.params.chat_id === chatId),
    async close() {
      for (const response of hanging) response.destroy();
      for (const wake of [...waiting]) wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standIn;
}
