import type { NotificationEvent } from '#libs/contracts/notification-events.js';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  signWebhook,
} from '#libs/contracts/webhook-signature.js';

/** The body and headers of one event's POST to one endpoint (docs/notifications.md, "Payload"). */
export function webhookRequest(
  event: NotificationEvent,
  secret: string,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, body),
      [WEBHOOK_EVENT_HEADER]: event.kind,
      [WEBHOOK_DELIVERY_HEADER]: event.id,
    },
  };
}
