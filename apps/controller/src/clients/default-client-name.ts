import { randomInt } from 'node:crypto';

/** Lower-case letters and digits without the ones read alike (0/o, 1/l/i): easy to say and type. */
const READABLE = 'abcdefghjkmnpqrstuvwxyz23456789';
const SUFFIX_LENGTH = 6;

/**
 * The name of a client created without one (the contract's create body has no `name`): the
 * Telegram id when there is one (`tg-123456789`), the handle an operator of a Telegram bot
 * searches by; otherwise `client-` and six random characters (`client-k3x9mp`), short enough to
 * read out. Names need not be unique, so a rare repeat is harmless; operators rename at will.
 */
export function defaultClientName(telegramId: number | null | undefined): string {
  if (telegramId !== null && telegramId !== undefined) return `tg-${telegramId}`;
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += READABLE[randomInt(READABLE.length)];
  return `client-${suffix}`;
}
