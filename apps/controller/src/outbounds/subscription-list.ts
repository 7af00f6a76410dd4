import { createHash } from 'node:crypto';
import { canonicalAddress } from '#libs/net/forbidden-targets.js';
import { fromBase64 } from './share-links.js';

/** A node runs at most 250 hops: a longer list could never be placed whole. */
export const MAX_SUBSCRIPTION_LINES = 250;

export interface ListLine {
  /** 1-based, in the decoded list. */
  line: number;
  text: string;
}

/**
 * A subscription's body to its share links: the text itself, or base64 of it (the form most
 * providers serve; line breaks inside the base64 allowed). Blank lines and comments (#, //) are
 * left out; each other line is one link.
 */
export function subscriptionLines(body: string): ListLine[] {
  const text = body.replace(/^\uFEFF/, '');
  const compact = text.replace(/\s+/g, '');
  const decoded = !text.includes('://') && compact !== '' ? fromBase64(compact) : undefined;
  return (decoded ?? text)
    .split(/\r?\n/)
    .map((raw, index) => ({ line: index + 1, text: raw.trim() }))
    .filter((entry) => entry.text !== '' && !entry.text.startsWith('#') && !entry.text.startsWith('//'));
}

/**
 * A hop's key in its subscription: kind, server and user name, so a refresh that changes its
 * password or name updates the same hop, and one that moves it to another server is another hop.
 */
export function hopKey(kind: string, host: string, port: number, username: string | null): string {
  const server = canonicalAddress(host)?.text ?? host.toLowerCase().replace(/\.$/, '');
  return createHash('sha256')
    .update(`${kind}\n${server}\n${port}\n${username ?? ''}`)
    .digest('hex');
}
