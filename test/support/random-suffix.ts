import { randomBytes } from 'node:crypto';

/** `length` random hex characters, for names no concurrent run shares (interfaces: 15 chars at most). */
export function randomSuffix(length = 6): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}
