import { CreateBalancerDto } from '../balancers/dto/balancer.dto.js';
import type { Type } from '@nestjs/common';
import { isTunnelName, TUNNEL_NAME_RULE } from '#libs/contracts/interface-names.js';
import { BUILTIN_OUTBOUNDS } from '#libs/contracts/routing.js';
import { parseInterfaceSubnet } from '#libs/wireguard/address-pool.js';
import { validateAmneziaParams } from '#libs/wireguard/amnezia.js';
import { isIpv4 } from '#libs/wireguard/ipv4.js';
import { isWireGuardKey } from '#libs/wireguard/keys.js';
import { CreateDeviceDto } from '../clients/dto/device.dto.js';
import { UpdateClientDto } from '../clients/dto/client.dto.js';
import { SaveGroupDto } from '../groups/dto/group.dto.js';
import { normalizeCidr, normalizeList } from '../common/network-text.js';
import { ApiError, badRequest } from '../http/api-error.js';
import { CreateHostDto, CreateHostGroupDto } from '../interfaces/dto/host.dto.js';
import { CreateInterfaceDto } from '../interfaces/dto/interface.dto.js';
import { UpdateNodeDto } from '../nodes/dto/node.dto.js';
import { CreateOutboundDto } from '../outbounds/dto/outbound.dto.js';
import { CreateOutboundSubDto, MIN_SUB_INTERVAL_SECONDS } from '../outbounds/dto/outbound-sub.dto.js';
import { assertReachableByKind, formatHopAddress, parseHopAddress } from '../outbounds/hop-address.js';
import { assertFieldsFit, assertUsableHopKeys } from '../outbounds/outbounds.service.js';
import { CreateRuleDto, UpdateRoutingDto } from '../routing/dto/routing.dto.js';
import { UpdateSettingsDto } from '../settings/dto/settings.dto.js';
import { MAIL_KEY, NOTIFY_KEY } from '../notifications/notification-settings.js';
import { SubscriptionSettingsDto } from '../subscriptions/dto/subscription.dto.js';
import {
  isSubscriptionKey,
  SUBSCRIPTION_KEY_SETTING,
  SUBSCRIPTION_SETTINGS_KEY,
} from '../subscriptions/subscription-settings.js';
import { checkLists } from '../template/template-plan.service.js';
import { validRow } from '../template/row-validation.js';
import { UpdateTokenDto } from '../tokens/dto/token.dto.js';
import { passwordHashFault } from '../auth/password.js';
import { ArchiveRefused } from './backup-archive.js';

type Row = Record<string, unknown>;

/** What otplib's generateSecret gives (auth/totp): 20 random bytes in base32, no padding. */
const TOTP_SECRET = /^[A-Z2-7]{32}$/;
export type RowQuery = (sql: string) => Promise<Row[]>;

/** A value the API would have had to take: absent when the column holds SQL null. */
const given = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null));
/** int8 columns come back as text; the DTOs take numbers. */
const num = (value: unknown) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);

/** Fails with the API's own refusal when `check` throws one. */
function wrongAt(path: string, error: ApiError): never {
  const field = error.field.replace(/^\./, ''); // checked under no path of their own
  throw new ArchiveRefused(`the archive's ${path} is refused: ${field ? `${field}: ` : ''}${error.message}`);
}

async function dto<T extends object>(type: Type<T>, body: Row, path: string): Promise<T> {
  try {
    return await validRow(type, body, '');
  } catch (error) {
    if (error instanceof ApiError) wrongAt(path, error);
    throw error;
  }
}

async function rule(path: string, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (error instanceof ApiError) wrongAt(path, error);
    throw error;
  }
}

/**
 * Every table whose rows reach a route's answer, a rendered profile or a node's config, each
 * row read back from the restore's transaction in the shape its route takes and checked with
 * that route's DTO class (the pipe's own options, template/row-validation.ts) and the services'
 * own checks (AmneziaWG bounds, subnets, hop fields and addresses, routing lists). An archive
 * is the owner's, but it is a file that came from somewhere: a crafted one must not put into
 * the panel what no request could (docs/backups.md, "What a restore trusts").
 */
const CHECKS: { table: string; sql: string; check: (row: Row, path: string) => Promise<void> }[] = [
  {
    table: 'nodes',
    sql: `select id, name, address, note from nodes order by id`,
    // The local node is made with no address (''), which no request could give: left out when empty.
    check: async ({ address, ...row }, path) => {
      await dto(UpdateNodeDto, { ...row, ...(address === '' ? {} : { address }) }, path);
    },
  },
  {
    table: 'interfaces',
    sql: `select id, name, protocol, mode, listen_port as "listenPort", subnet, endpoint_host as "endpointHost", mtu, dns,
                 nat_interface as "natInterface", enabled, awg, private_key, public_key from interfaces order by id`,
    check: async ({ private_key, public_key, ...row }, path) => {
      const body = await dto(CreateInterfaceDto, row.awg === null ? { ...row, awg: undefined } : row, path);
      await rule(path, () => {
        if (body.awg && body.mode !== 'amnezia') throw badRequest('awg parameters apply only to amnezia mode', 'awg');
        if (body.mode === 'amnezia' && !body.awg) throw badRequest('an amnezia interface needs its parameters', 'awg');
        const field = body.awg ? validateAmneziaParams(body.awg) : null;
        if (field) throw badRequest(`awg.${field} is out of bounds`, `awg.${field}`);
        try {
          parseInterfaceSubnet(body.subnet);
        } catch (error) {
          throw badRequest((error as Error).message, 'subnet');
        }
        if (!isWireGuardKey(private_key) || !isWireGuardKey(public_key))
          throw badRequest('the interface keys must be WireGuard keys (base64 of 32 bytes)', 'privateKey');
      });
    },
  },
  {
    table: 'hosts',
    sql: `select id, interface_id as "interfaceId", name, address, port, priority, enabled, group_id as "groupId", tags
            from hosts order by id`,
    check: async (row, path) => void (await dto(CreateHostDto, row, path)),
  },
  {
    table: 'host_groups',
    sql: `select id, name, client_groups as "clientGroups" from host_groups order by id`,
    check: async (row, path) => {
      if (typeof row.name === 'string' && row.name.trim() !== row.name)
        wrongAt(path, badRequest('name must not start or end with white space', 'name'));
      await dto(CreateHostGroupDto, row, path);
    },
  },
  {
    table: 'outbounds',
    sql: `select id, kind, tag, enabled, position, host, port, username, password, method, private_key as "privateKey",
                 peer_public_key as "peerPublicKey", preshared_key as "presharedKey", allowed_ips as "allowedIps",
                 tunnel_address as "tunnelAddress", mtu, keepalive, note, interface_name from outbounds order by id`,
    check: async ({ host, port, interface_name, ...row }, path) => {
      // The built-ins are made by a trigger with every node and carry nothing but their kind.
      if ((BUILTIN_OUTBOUNDS as readonly string[]).includes(row.kind as string)) {
        if (row.tag !== row.kind || host !== null || port !== null)
          wrongAt(
            path,
            badRequest(`the built-in outbound ${String(row.kind)} carries no tag or address of its own`, 'tag'),
          );
        return;
      }
      const fields = given(row);
      // An empty allowed-IPs list is the column's default for the kinds that take none.
      if (row.kind !== 'wireguard' && Array.isArray(fields.allowedIps) && fields.allowedIps.length === 0)
        delete fields.allowedIps;
      const address = formatHopAddress(host as string | null, port as number | null);
      const body = await dto(CreateOutboundDto, { ...fields, ...(address === null ? {} : { address }) }, path);
      await rule(path, () => {
        assertFieldsFit(body.kind, body);
        assertUsableHopKeys(body.privateKey, body.peerPublicKey, 'peerPublicKey');
        assertReachableByKind(body.kind, parseHopAddress(body.address).host);
        if (body.tunnelAddress !== undefined) normalizeCidr(body.tunnelAddress, 'tunnelAddress');
        if (body.allowedIps !== undefined) normalizeList(body.allowedIps, 'allowedIps', normalizeCidr);
        // No route takes it (the service makes it; the agent creates an interface by it): held to
        // what the service makes, a tunnel name for a WireGuard hop and none for the others.
        if (body.kind === 'wireguard' ? !isTunnelName(interface_name) : interface_name !== null)
          throw badRequest(
            body.kind === 'wireguard'
              ? `interfaceName must be a tunnel name (${TUNNEL_NAME_RULE})`
              : `interfaceName applies only to a wireguard outbound`,
            'interfaceName',
          );
      });
    },
  },
  {
    table: 'outbound_subscriptions',
    sql: `select id, name, url, enabled, interval_seconds as "intervalSeconds" from outbound_subscriptions order by id`,
    // The URL's target is checked again at every fetch (subscription-fetch.ts): its form here.
    check: async (row, path) => {
      const body = await dto(CreateOutboundSubDto, row, path);
      await rule(path, () => {
        const url = URL.canParse(body.url) ? new URL(body.url) : null;
        if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password)
          throw badRequest('url must be an http or https URL without a user name or password', 'url');
        if (
          body.intervalSeconds !== undefined &&
          body.intervalSeconds !== 0 &&
          body.intervalSeconds < MIN_SUB_INTERVAL_SECONDS
        )
          throw badRequest(`intervalSeconds must be 0 or at least ${MIN_SUB_INTERVAL_SECONDS}`, 'intervalSeconds');
      });
    },
  },
  {
    table: 'balancers',
    // What balancers.service checks across rows, read beside the row (the DTO sees only the row):
    // every hop a hop of the balancer's own node (not direct or blocked), each once; the override
    // one of its hops; its tag no outbound's on the node.
    sql: `select b.id, b.tag, b.strategy, b.hops, b.note,
                 exists (select 1 from unnest(b.hops) h where not exists (
                   select 1 from outbounds o where o.id::text = h and o.node_id = b.node_id
                      and o.kind not in ('direct', 'blocked'))) as "foreignHop",
                 cardinality(b.hops) <> (select count(distinct h) from unnest(b.hops) h) as "repeatedHop",
                 b.override_id is not null and not (b.override_id::text = any(b.hops)) as "strayOverride",
                 exists (select 1 from outbounds o where o.node_id = b.node_id and o.tag = b.tag) as "tagTaken"
            from balancers b order by b.id`,
    check: async ({ foreignHop, repeatedHop, strayOverride, tagTaken, ...row }, path) => {
      await dto(CreateBalancerDto, given(row), path);
      await rule(path, () => {
        if (foreignHop) throw badRequest("every hop must be a hop of the balancer's node", 'hops');
        if (repeatedHop) throw badRequest('a hop is listed twice', 'hops');
        if (strayOverride) throw badRequest("the override must be one of the balancer's hops", 'overrideId');
        if (tagTaken) throw badRequest('an outbound of the node has the same tag', 'tag');
      });
    },
  },
  {
    table: 'routing_basics',
    sql: `select b.node_id as id, b.block_bit_torrent as "blockBitTorrent", b.block_ips as "blockIps", b.block_domains as "blockDomains",
                 b.block_ports as "blockPorts", b.direct_ips as "directIps", b.direct_domains as "directDomains",
                 b.fail_closed as "failClosed", o.tag as "defaultOutbound"
            from routing_basics b left join outbounds o on o.id = b.default_outbound_id order by b.node_id`,
    check: async (row, path) => {
      const body = await dto(UpdateRoutingDto, given(row), path);
      await rule(path, () => checkLists(body, ''));
    },
  },
  {
    table: 'routing_rules',
    sql: `select r.id, r.name, r.enabled, r.source_ips as "sourceIps", r.source_ports as "sourcePorts", r.network,
                 r.dest_ips as "destIps", r.domains, r.ports, r.clients, r.groups, r.interfaces,
                 coalesce(o.tag, lb.tag) as "outboundTag"
            from routing_rules r left join outbounds o on o.id = r.outbound_id left join balancers lb on lb.id = r.balancer_id
           order by r.id`,
    check: async (row, path) => {
      const body = await dto(CreateRuleDto, row, path);
      await rule(path, () => checkLists(body, ''));
    },
  },
  {
    table: 'clients',
    sql: `select id, name, note, groups, telegram_id as "telegramId", quota_bytes as "quotaBytes", expires_at as "expiresAt",
                 device_limit as "deviceLimit", reset_cycle as "resetCycle", rate_bits_per_sec as "rateBitsPerSec"
            from clients order by id`,
    check: async (row, path) => {
      const body = Object.fromEntries(Object.entries(row).map(([field, value]) => [field, num(value)]));
      if (body.expiresAt instanceof Date) body.expiresAt = body.expiresAt.toISOString();
      // A stored name is trimmed already: one the DTO would trim was never stored by a request.
      if (typeof body.name === 'string' && body.name.trim() !== body.name)
        wrongAt(path, badRequest('name must not start or end with white space', 'name'));
      await dto(UpdateClientDto, body, path);
    },
  },
  {
    table: 'client_groups',
    sql: `select name as id, name, note, quota_bytes as "quotaBytes", expiry_days as "expiryDays", device_limit as "deviceLimit",
                 interface_ids as "interfaceIds", rate_bits_per_sec as "rateBitsPerSec"
            from client_groups order by name`,
    check: async (row, path) => {
      const body = Object.fromEntries(Object.entries(row).map(([field, value]) => [field, num(value)]));
      if (typeof body.name === 'string' && body.name.trim() !== body.name)
        wrongAt(path, badRequest('name must not start or end with white space', 'name'));
      await dto(SaveGroupDto, body, path);
    },
  },
  {
    table: 'devices',
    sql: `select id, name from devices order by id`,
    check: async (row, path) => void (await dto(CreateDeviceDto, row, path)),
  },
  {
    table: 'accounts',
    sql: `select id, ip, private_key, public_key, preshared_key from accounts order by id`,
    // No route takes these (the service makes them); held to what the service makes.
    check: async (row, path) => {
      if (!isIpv4(row.ip)) wrongAt(path, badRequest('ip must be an IPv4 address', 'ip'));
      for (const key of ['private_key', 'public_key', 'preshared_key'])
        // An imported peer may have no preshared key (''), as its old panel had it (docs/import.md).
        if (!isWireGuardKey(row[key]) && !(key === 'preshared_key' && row[key] === ''))
          wrongAt(path, badRequest(`${key} must be a WireGuard key`, key));
    },
  },
  {
    table: 'users',
    sql: `select id, password_hash, totp_secret, totp_enabled, totp_last_step from users order by id`,
    // No route writes these as given (auth hashes the password, otplib makes the secret): held to
    // what the auth module writes. A hash crypto.scrypt cannot take answered sign-in with a 500.
    check: async (row, path) => {
      const fault = passwordHashFault(row.password_hash);
      if (fault) wrongAt(path, badRequest(`the password hash cannot be used: ${fault}`, 'password_hash'));
      if (row.totp_secret !== null && !(typeof row.totp_secret === 'string' && TOTP_SECRET.test(row.totp_secret)))
        wrongAt(path, badRequest('totp_secret must be a TOTP secret (32 base32 characters)', 'totp_secret'));
      if (row.totp_enabled === true && row.totp_secret === null)
        wrongAt(path, badRequest('two-factor sign-in is on without a secret', 'totp_enabled'));
      if (row.totp_last_step !== null && !/^\d{1,15}$/.test(String(row.totp_last_step)))
        wrongAt(path, badRequest('totp_last_step must be a time step (a whole number)', 'totp_last_step'));
    },
  },
  {
    table: 'api_tokens',
    sql: `select id, name, enabled from api_tokens order by id`,
    check: async (row, path) => void (await dto(UpdateTokenDto, row, path)),
  },
];

/** Checks the restored rows (see CHECKS); throws ArchiveRefused naming the first row (table, id) and field that fail. */
export async function checkRestoredRows(query: RowQuery): Promise<void> {
  for (const { table, sql, check } of CHECKS) {
    const rows = await query(sql);
    // Named by id: the archive's rows, unlike the API's, have no other name to go by.
    for (const { id, ...row } of rows) await check(row, `row ${table} ${String(id)}`);
  }
  // Settings are one row per key: together they are what PATCH /api/settings takes, but for the
  // subscription page's own (what PUT /api/subscription takes) and the key its links derive from.
  const rows = await query(`select key, value from settings order by key`);
  // The notification settings' rows (notify, mail) are read leniently (a value out of shape reads
  // as its default) and mail servers are checked again at every send: nothing to refuse here.
  const {
    [SUBSCRIPTION_SETTINGS_KEY]: subscription,
    [SUBSCRIPTION_KEY_SETTING]: linkKey,
    [NOTIFY_KEY]: _notify,
    [MAIL_KEY]: _mail,
    ...settings
  } = Object.fromEntries(rows.map((row) => [row.key as string, row.value]));
  await dto(UpdateSettingsDto, settings, 'settings rows');
  if (subscription !== undefined) await dto(SubscriptionSettingsDto, subscription as Row, 'settings row subscription');
  if (linkKey !== undefined && !isSubscriptionKey(linkKey))
    wrongAt('settings row subscriptionKey', badRequest('the link key must be 32 bytes in base64', 'value'));
}
