import { Logger } from '@nestjs/common';
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt from node:crypto: memory-hard, no native addon to build. N=2^15 costs ~30 ms here.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/**
 * The parameter sets hashPassword has ever made (only PARAMS so far): a stored hash with others
 * came from somewhere else (a restored or hand-edited row). Raising PARAMS adds the new set here
 * and keeps the old one, so old hashes still verify.
 */
const ACCEPTED_PARAMS: readonly { N: number; r: number; p: number }[] = [{ N: PARAMS.N, r: PARAMS.r, p: PARAMS.p }];
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const logger = new Logger('auth');
/** Users whose unusable hash was logged already: once per user, not once per sign-in attempt. */
const warned = new Set<string>();

function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, params, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$key`, so parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/**
 * Why a stored hash cannot be checked (not `scrypt$N$r$p$salt$key` with the parameters, salt and
 * key lengths hashPassword makes), or null when it can. crypto.scrypt throws (a RangeError, a
 * 500 at sign-in) on N not a power of two, and p = 100000 would cost minutes: neither is tried.
 */
export function passwordHashFault(stored: unknown): string | null {
  if (typeof stored !== 'string') return 'it is not text';
  const parts = stored.split('$');
  const [scheme, n, r, p, salt, key] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt') return 'it is not scrypt$N$r$p$salt$key';
  if (!ACCEPTED_PARAMS.some((params) => `${params.N}` === n && `${params.r}` === r && `${params.p}` === p))
    return `its scrypt parameters N=${n.slice(0, 20)} r=${r.slice(0, 20)} p=${p.slice(0, 20)} are not ones this panel makes`;
  if (!BASE64.test(salt) || Buffer.from(salt, 'base64').length !== SALT_LENGTH)
    return `its salt is not ${SALT_LENGTH} bytes in base64`;
  if (!BASE64.test(key) || Buffer.from(key, 'base64').length !== KEY_LENGTH)
    return `its key is not ${KEY_LENGTH} bytes in base64`;
  return null;
}

/**
 * Whether `password` is the one `stored` was made from. A hash that cannot be checked
 * (passwordHashFault) is a failed verification, logged once per `user` (no stack: nothing in the
 * panel is broken, the row is), so sign-in answers the usual 401, never a 500.
 */
export async function verifyPassword(password: string, stored: string, user?: string): Promise<boolean> {
  const fault = passwordHashFault(stored);
  if (fault) {
    if (user !== undefined && !warned.has(user)) {
      warned.add(user);
      logger.warn(
        `the password hash of ${JSON.stringify(user.slice(0, 64))} cannot be used (${fault}): its sign-ins are refused until \`warren admin reset-password\` sets a new one`,
      );
    }
    // As long as a real check: which users have such a row is no one's to time.
    await derive(password, randomBytes(SALT_LENGTH), PARAMS);
    return false;
  }
  const [, n, r, p, salt, key] = stored.split('$');
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of nothing, checked when the username is unknown so both paths take the same time. */
export const DECOY_HASH = await hashPassword(randomBytes(16).toString('hex'));

/** A password the panel makes up (first start, `warren admin reset-password`): 144 random bits, URL-safe. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
