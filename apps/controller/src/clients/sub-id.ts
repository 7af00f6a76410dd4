import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const SUB_ID_LENGTH = 16;

/**
 * A client's subscription id: 16 base62 characters (95 bits), so guessing one is hopeless and
 * a collision among even a million clients has odds around 1e-17 (the unique index refuses one).
 */
export function generateSubId(): string {
  let id = '';
  for (let i = 0; i < SUB_ID_LENGTH; i++) id += BASE62[randomInt(BASE62.length)];
  return id;
}
