import type { Readable } from 'node:stream';
import { ApiError, badRequest } from '../../http/api-error.js';

/** The largest file an import reads: a wg-easy file of 100,000 peers is about 45 MiB. */
export const IMPORT_MAX_BYTES = 64 * 2 ** 20;

/** The whole upload in memory, refused past `limit` (413) and when empty (400), both naming `file`. */
export async function uploadBytes(body: unknown, limit = IMPORT_MAX_BYTES): Promise<Buffer> {
  if (!body || typeof (body as Readable)[Symbol.asyncIterator] !== 'function')
    throw new ApiError(415, 'send the file as the body, as application/octet-stream', 'file');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as Readable) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(413, `the file is larger than the import limit (${limit} bytes)`, 'file');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) throw badRequest('the file is empty', 'file');
  return Buffer.concat(chunks);
}
