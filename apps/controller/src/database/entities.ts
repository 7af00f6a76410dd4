import { ApiToken } from '../tokens/api-token.entity.js';
import { AuditEntry } from '../audit/audit-entry.entity.js';
import { LoginThrottle } from '../auth/login-throttle.entity.js';
import { Session } from '../auth/session.entity.js';
import { RecoveryCode } from '../auth/totp/recovery-code.entity.js';
import { User } from '../auth/user.entity.js';
import { Account } from '../clients/account.entity.js';
import { Client } from '../clients/client.entity.js';
import { ClientInterface } from '../clients/client-interface.entity.js';
import { Device } from '../clients/device.entity.js';
import { ClientBulkItem, ClientBulkJob } from '../clients/bulk/bulk-job.entity.js';
import { ClientGroup } from '../groups/client-group.entity.js';
import { DeviceEndpoint } from '../clients/sharing/device-endpoint.entity.js';
import { ClientUsageRow, NodeUsageRow } from '../clients/usage-history.entity.js';
import { DownloadLink } from '../subscriptions/download-link.entity.js';
import { Host } from '../interfaces/host.entity.js';
import { HostGroup } from '../interfaces/host-group.entity.js';
import { TunnelInterface } from '../interfaces/interface.entity.js';
import { Node } from '../revisions/node.entity.js';
import { NodeAgent } from '../nodes/node-agent.entity.js';
import { InventoryCount } from '../overview/inventory-count.entity.js';
import { InventoryDelta } from '../overview/inventory-delta.entity.js';
import { PeerChange } from '../nodes/delivery/peer-change.entity.js';
import { ScheduledRun } from '../queue/scheduled-run.entity.js';
import { Setting } from '../settings/setting.entity.js';
import { SystemSampleRow } from '../system/system-sample.entity.js';
import { Outbound } from '../outbounds/outbound.entity.js';
import { OutboundTransition } from '../outbounds/outbound-transition.entity.js';
import { OutboundSubscription } from '../outbounds/outbound-subscription.entity.js';
import { Balancer } from '../balancers/balancer.entity.js';
import { RoutingBasic } from '../routing/routing-basic.entity.js';
import { RoutingRule } from '../routing/routing-rule.entity.js';
import { NotificationEventRow } from '../notifications/events/notification-event.entity.js';
import { WebhookDelivery } from '../notifications/webhooks/webhook-delivery.entity.js';
import { WebhookEndpoint } from '../notifications/webhooks/webhook-endpoint.entity.js';
import { ResellerLimits } from '../resellers/reseller-limits.entity.js';
import { TelegramUser } from '../telegram/telegram-user.entity.js';

/** Every entity the controller maps; the migration generator diffs against exactly this list. */
export const ENTITIES = [
  User,
  Session,
  ApiToken,
  LoginThrottle,
  RecoveryCode,
  Node,
  NodeAgent,
  TunnelInterface,
  Host,
  HostGroup,
  Client,
  ClientInterface,
  Device,
  Account,
  DownloadLink,
  SystemSampleRow,
  Setting,
  ScheduledRun,
  InventoryCount,
  InventoryDelta,
  PeerChange,
  Outbound,
  OutboundTransition,
  OutboundSubscription,
  Balancer,
  RoutingBasic,
  RoutingRule,
  AuditEntry,
  ResellerLimits,
  ClientGroup,
  ClientBulkJob,
  ClientBulkItem,
  DeviceEndpoint,
  ClientUsageRow,
  NodeUsageRow,
  TelegramUser,
  NotificationEventRow,
  WebhookEndpoint,
  WebhookDelivery,
];
