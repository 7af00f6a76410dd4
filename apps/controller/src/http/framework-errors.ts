import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response.js';

/**
 * fastify's `frameworkErrors`: the router's own refusals before any hook or Nest runs (a bad
 * escape in the path, a path parameter over its length limit). fastify would answer them in its
 * own shape with the URL echoed; they get the one `{error, field}` answer instead.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const answer = toErrorResponse(error);
  // No onSend hook runs for these: the request layer's answer headers are set here.
  void reply
    .code(answer.status)
    .headers({ ...answer.headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
    .send(answer.body);
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request timed out'],
  HPE_HEADER_OVERFLOW: [431, 'request headers too large'],
};

/**
 * fastify's `clientErrorHandler`: requests Node's HTTP parser refuses (an unknown method, a
 * malformed request line or header) never reach fastify's router. Answered like fastify's default
 * (a last response, then the connection closes) but in the `{error, field}` shape.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection is gone: there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'malformed HTTP request'];
  const body = JSON.stringify({ error: message, field: '' });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
