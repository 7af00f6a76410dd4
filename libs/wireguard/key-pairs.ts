import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { generateKeyPair, type WireGuardKeyPair } from './keys.js';

/**
 * Below this many pairs a worker's start-up (tens of milliseconds on a busy machine) costs more
 * than the pairs themselves (a few hundred microseconds each): one client, one device.
 */
export const KEY_PAIRS_IN_WORKER_FROM = 64;

/**
 * The worker's program: `workerData` pairs as raw bytes (32 private, then 32 public, each pair),
 * in one buffer handed over without a copy. Source text rather than a file of its own, so the
 * same code runs from the build and from the TypeScript sources the tests load.
 */
const WORKER_SOURCE = `
const { parentPort, workerData: count } = require('node:worker_threads');
const { generateKeyPairSync } = require('node:crypto');
const bytes = new Uint8Array(count * 64);
for (let i = 0; i < count; i++) {
  const jwk = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
  bytes.set(Buffer.from(jwk.d, 'base64url'), i * 64);
  bytes.set(Buffer.from(jwk.x, 'base64url'), i * 64 + 32);
}
parentPort.postMessage(bytes, [bytes.buffer]);
`;

/**
 * `count` new key pairs. Many are made on a worker thread: a batch of 10,000 clients takes about
 * half a second of CPU for its keys, and the caller starts them before its inserts so they are
 * made while its event loop waits on the database. The promise rejects if the worker fails;
 * callers that start it early must still await (or catch) it.
 */
export function generateKeyPairs(count: number): Promise<WireGuardKeyPair[]> {
  if (count < KEY_PAIRS_IN_WORKER_FROM) return Promise.resolve(Array.from({ length: count }, generateKeyPair));
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: count });
    worker.once('message', (bytes: Uint8Array) => {
      if (bytes.length !== count * 64) {
        reject(new Error(`the key worker made ${bytes.length / 64} key pairs, not ${count}`));
        return;
      }
      const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
      resolve(
        Array.from({ length: count }, (_, index) => ({
          privateKey: raw.toString('base64', index * 64, index * 64 + 32),
          publicKey: raw.toString('base64', index * 64 + 32, index * 64 + 64),
        })),
      );
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the key worker exited (code ${code}) before answering`)));
  });
}

/** `count` preshared keys (`wg genpsk`: 32 random bytes each) from one read of randomness. */
export function generatePresharedKeys(count: number): string[] {
  const bytes = randomBytes(32 * count);
  return Array.from({ length: count }, (_, index) => bytes.toString('base64', 32 * index, 32 * index + 32));
}
