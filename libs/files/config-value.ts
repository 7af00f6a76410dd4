/**
 * What every renderer of a config file (WireGuard and AmneziaWG profiles and server configs, the
 * agent's hop and resolver configs) checks each value with before writing it. The values were
 * validated where they entered (API, template, restore, job schema), and are checked again here:
 * one newline let through anywhere would add a line of the writer's choosing (a wg-quick
 * `PostUp`, run as root on every customer's machine; a redsocks or dnsmasq directive on a node).
 */

import { CONTROL_CHARACTER } from '#libs/contracts/control-characters.js';

export class ConfigValueError extends TypeError {
  override name = 'ConfigValueError';
}

/** `value`, or ConfigValueError when it holds a control character. */
export function textValue(what: string, value: string): string {
  if (typeof value !== 'string' || CONTROL_CHARACTER.test(value))
    throw new ConfigValueError(`${what} holds a control character and cannot be written to a config file`);
  return value;
}

/** `value`, or ConfigValueError when it is not an integer (a number, not text that reads as one). */
export function integerValue(what: string, value: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new ConfigValueError(`${what} is not an integer and cannot be written to a config file`);
  return value;
}
