import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How a webhook receiver knows a POST came from this panel (docs/notifications.md, "Verifying"):
 * `Warren-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the
 * endpoint's secret>`. The timestamp is inside the MAC, so a replay is refused once it is older
 * than the receiver's tolerance.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Warren-Signature';
export const WEBHOOK_EVENT_HEADER = 'Warren-Event';
export const WEBHOOK_DELIVERY_HEADER = 'Warren-Delivery';

export function webhookMac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signWebhook(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${webhookMac(secret, timestamp, body)}`;
}

/** True when `header` signs `body` with `secret` and its timestamp is within `toleranceSeconds` of now. */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string | undefined,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookMac(secret, timestamp, body), 'hex');
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
