import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertPublicTarget } from '../common/private-targets.js';
import { mapInParallel } from '../common/in-parallel.js';
import { mapUniqueViolations } from '../database/unique-violations.js';
import { ApiError, badRequest, conflict, notFound } from '../http/api-error.js';
import { isId } from '../http/id.js';
import { bumpRevisions, lockNode } from '../revisions/revisions.js';
import { SettingsService } from '../settings/settings.service.js';
import {
  DEFAULT_SUB_INTERVAL_SECONDS,
  MAX_OUTBOUND_SUBS,
  MIN_SUB_INTERVAL_SECONDS,
  type CreateOutboundSubDto,
  type OutboundSubHopDto,
  type OutboundSubPreviewDto,
  type UpdateOutboundSubDto,
} from './dto/outbound-sub.dto.js';
import { MAX_HOPS_PER_NODE } from './dto/outbound.dto.js';
import { formatHopAddress } from './hop-address.js';
import { OutboundSubsRepository, type OutboundSubView } from './outbound-subs.repository.js';
import { OutboundToolsService } from './outbound-tools.service.js';
import { OutboundsRepository } from './outbounds.repository.js';
import { OutboundsService } from './outbounds.service.js';
import { fetchSubscription, SubscriptionFetchError } from './subscription-fetch.js';
import { hopKey, MAX_SUBSCRIPTION_LINES, subscriptionLines } from './subscription-list.js';

/** Skipped lines kept per subscription: enough to see what is wrong, not a copy of a bad list. */
const MAX_SKIPPED = 20;
/** Subscriptions fetched at once by a refresh of all, or a scheduler tick. */
export const SUB_REFRESH_PARALLEL = 4;

/** A link of the list that gives a hop, read and checked as the create route would. */
interface ListedHop {
  line: number;
  key: string;
  tag: string;
  kind: 'socks' | 'http' | 'shadowsocks';
  host: string;
  port: number;
  fields: { username: string | null; password: string | null; method: string | null };
}

export interface RefreshOutcome {
  subscription: OutboundSubView;
  added: number;
  updated: number;
  removed: number;
  kept: number;
}

const UNIQUE_FIELDS = {
  outbound_subscriptions_name_unique: { field: 'name', message: 'a subscription with this name already exists' },
  outbounds_subscription_id_subscription_key_unique: {
    field: '',
    message: 'the subscription was refreshed at the same time; try again',
  },
  outbounds_node_id_tag_unique: {
    field: '',
    message: 'a hop was created on this node at the same time; try again',
  },
  outbounds_node_id_slot_unique: {
    field: '',
    message: 'a hop was created on this node at the same time; try again',
  },
};

/**
 * Outbound subscriptions (docs/outbounds.md, "Subscriptions"): a URL whose list becomes hops of
 * one node. A refresh fetches and reads the list first (no lock held while the network answers),
 * then, in one transaction, under the subscription's row, its hops' rows and the node's row (the
 * controller's lock order), updates each listed hop in place by its key, makes the new ones and
 * deletes those gone from the list, keeping (and flagging) any a rule or the default still uses.
 */
@Injectable()
export class OutboundSubsService {
  constructor(
    private readonly subs: OutboundSubsRepository,
    private readonly outbounds: OutboundsService,
    private readonly hops: OutboundsRepository,
    private readonly tools: OutboundToolsService,
    private readonly settings: SettingsService,
  ) {}

  /**
   * `withUrls` false (a viewer): each URL is cut to its origin. A provider's list URL carries its
   * access token in its path or query, and whoever holds it fetches the hops' passwords, which
   * the API never shows; a viewer reads nothing secret (docs/roles.md).
   */
  async list(nodeId: string | undefined, withUrls: boolean): Promise<OutboundSubView[]> {
    if (nodeId !== undefined) await this.outbounds.nodeOf(nodeId);
    const subs = await this.subs.list(nodeId);
    return withUrls ? subs : subs.map((sub) => ({ ...sub, url: urlOrigin(sub.url) }));
  }

  async create(input: CreateOutboundSubDto): Promise<OutboundSubView> {
    const name = this.name(input.name);
    await this.assertUsableUrl(input.url);
    const intervalSeconds = this.interval(input.intervalSeconds ?? DEFAULT_SUB_INTERVAL_SECONDS);
    const nodeId = await this.outbounds.nodeOf(input.nodeId);
    const id = await this.write(async (em) => {
      await lockNode(em, nodeId, 'nodeId');
      if ((await this.subs.total(em)) >= MAX_OUTBOUND_SUBS)
        throw conflict(`the panel keeps at most ${MAX_OUTBOUND_SUBS} outbound subscriptions`);
      return this.subs.insert(em, { nodeId, name, url: input.url, enabled: input.enabled ?? true, intervalSeconds });
    });
    return this.get(id);
  }

  async update(id: string, changes: UpdateOutboundSubDto): Promise<OutboundSubView> {
    const current = await this.find(id);
    if (changes.nodeId !== undefined && changes.nodeId !== current.node.id)
      throw badRequest("a subscription's node cannot change; create one for the other node", 'nodeId');
    if (changes.url !== undefined && changes.url !== current.url) await this.assertUsableUrl(changes.url);
    const name = changes.name !== undefined ? this.name(changes.name) : undefined;
    const interval = changes.intervalSeconds !== undefined ? this.interval(changes.intervalSeconds) : undefined;
    await this.write(async (em) => {
      const row = await this.subs.lock(em, id);
      if (!row) throw notFound('outbound subscription not found', 'id');
      if (name !== undefined) row.name = name;
      if (changes.url !== undefined) row.url = changes.url;
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      if (interval !== undefined) row.intervalSeconds = interval;
      await em.flush();
    });
    return this.get(id);
  }

  /**
   * Deletes the subscription and the hops it made, except those a rule or the node's default
   * still uses: they stay as ordinary hops (no longer from a subscription).
   */
  async remove(id: string): Promise<{ id: string; deleted: true }> {
    await this.find(id);
    await this.write(async (em) => {
      const row = await this.subs.lock(em, id);
      if (!row) throw notFound('outbound subscription not found', 'id');
      const hops = await this.subs.lockHops(em, id);
      await lockNode(em, row.node.id, 'nodeId');
      let removed = 0;
      for (const hop of hops) {
        if (await this.inUse(em, hop.id)) continue;
        await this.hops.delete(em, hop.id);
        removed += 1;
      }
      await this.subs.delete(em, id);
      if (removed > 0) await bumpRevisions(em, [row.node.id]);
    });
    return { id, deleted: true };
  }

  /** Sets the order (display and refresh-all order): `ids` lists every subscription once. */
  async order(ids: readonly string[]): Promise<OutboundSubView[]> {
    const seen = new Set<string>();
    for (const id of ids) {
      if (!isId(id)) throw badRequest(`"${id}" is not a subscription id`, 'ids');
      if (seen.has(id.toLowerCase())) throw badRequest(`subscription ${id} is listed twice`, 'ids');
      seen.add(id.toLowerCase());
    }
    await this.write(async (em) => {
      // Lock-free: positions are display and refresh order only, and the statement is one update.
      const existing = new Set(await this.subs.ids(em));
      for (const id of seen) if (!existing.has(id)) throw notFound(`subscription ${id} not found`, 'ids');
      if (seen.size !== existing.size)
        throw badRequest(
          `ids must list every subscription once (${existing.size}); ${existing.size - seen.size} missing`,
          'ids',
        );
      await this.subs.setOrder(em, [...seen]);
    });
    return this.subs.list();
  }

  /** Fetches and reads a list without saving anything: the hops a refresh would make, and the lines it would skip. */
  async preview(url: string): Promise<OutboundSubPreviewDto> {
    await this.assertUsableUrl(url);
    let body: string;
    try {
      body = await fetchSubscription(url, await this.limits());
    } catch (error) {
      if (error instanceof SubscriptionFetchError)
        throw badRequest(`the list could not be fetched: ${error.message}`, 'url');
      throw error;
    }
    const { hops, skipped } = await this.read(body);
    return { hops: hops.map(previewOf), skipped };
  }

  async refresh(id: string): Promise<RefreshOutcome> {
    const row = await this.find(id);
    let listed: Awaited<ReturnType<OutboundSubsService['read']>>;
    try {
      listed = await this.read(await fetchSubscription(row.url, await this.limits()));
    } catch (error) {
      if (!(error instanceof SubscriptionFetchError)) throw error;
      // The hops stay as they were: a list that could not be fetched says nothing about them.
      await this.write(async (em) => {
        const locked = await this.subs.lock(em, id);
        if (!locked) return;
        locked.lastFetchedAt = new Date();
        locked.lastError = error.message.slice(0, 500);
        await em.flush();
      });
      return { subscription: await this.get(id), added: 0, updated: 0, removed: 0, kept: 0 };
    }
    const outcome = await this.write((em) => this.place(em, id, listed));
    return { subscription: await this.get(id), ...outcome };
  }

  /** Refreshes every enabled subscription, a few at a time, in their order. */
  async refreshAll(): Promise<RefreshOutcome[]> {
    const ids = (await this.subs.list()).filter((sub) => sub.enabled).map((sub) => sub.id);
    const outcomes = await mapInParallel(ids, SUB_REFRESH_PARALLEL, (id) =>
      this.refresh(id).catch((error: unknown) => {
        // Deleted while the others were fetched: nothing to report for it.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    );
    return outcomes.filter((outcome) => outcome !== null);
  }

  /** The ids of subscriptions whose schedule says they are due (for the scheduler). */
  due(now: Date): Promise<string[]> {
    return this.subs.due(now);
  }

  private async get(id: string): Promise<OutboundSubView> {
    const found = await this.subs.get(id);
    if (!found) throw notFound('outbound subscription not found', 'id');
    return found;
  }

  private async find(id: string) {
    const row = isId(id) ? await this.subs.find(id) : null;
    if (!row) throw notFound('outbound subscription not found', 'id');
    return row;
  }

  /**
   * The list's links, each read and checked by the create route's own rules (the parse route's
   * reading); a line that gives no hop, or the same hop as an earlier line, is skipped with why.
   */
  private async read(body: string): Promise<{ hops: ListedHop[]; skipped: string[] }> {
    const lines = subscriptionLines(body);
    const skipped: string[] = [];
    if (lines.length > MAX_SUBSCRIPTION_LINES)
      skipped.push(
        `lines after the first ${MAX_SUBSCRIPTION_LINES} links: a node runs at most ${MAX_HOPS_PER_NODE} hops`,
      );
    const hops: ListedHop[] = [];
    const seen = new Map<string, number>();
    for (const { line, text } of lines.slice(0, MAX_SUBSCRIPTION_LINES)) {
      try {
        const read = await this.tools.read(text);
        const kind = read.outbound.kind;
        if (kind === 'wireguard') throw badRequest('a WireGuard file is not a one-line link', 'text');
        const key = hopKey(kind, read.address.host, read.address.port, read.fields.username);
        const earlier = seen.get(key);
        if (earlier !== undefined) {
          skipped.push(`line ${line}: the same hop as line ${earlier}`);
          continue;
        }
        seen.set(key, line);
        hops.push({
          line,
          key,
          tag: read.outbound.tag,
          kind,
          host: read.address.host,
          port: read.address.port,
          fields: { username: read.fields.username, password: read.fields.password, method: read.fields.method },
        });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        skipped.push(`line ${line}: ${error.message}`);
      }
    }
    return { hops, skipped: skipped.slice(0, MAX_SKIPPED).map((entry) => entry.slice(0, 500)) };
  }

  /** The list applied to the subscription's hops, in the caller's transaction. */
  private async place(
    em: EntityManager,
    id: string,
    listed: { hops: ListedHop[]; skipped: string[] },
  ): Promise<Omit<RefreshOutcome, 'subscription'>> {
    const sub = await this.subs.lock(em, id);
    if (!sub) throw notFound('outbound subscription not found', 'id');
    const nodeId = sub.node.id;
    const current = await this.subs.lockHops(em, id);
    await lockNode(em, nodeId, 'nodeId');
    const byKey = new Map(current.map((hop) => [hop.subscriptionKey ?? '', hop]));
    const placements = await this.hops.placementsOnNode(em, nodeId);
    // Rules name hops and balancers by tag alike: a listed name must not take a balancer's.
    const tags = new Set([...placements.map((hop) => hop.tag), ...(await this.hops.balancerTags(em, nodeId))]);
    const slots = new Set(placements.map((hop) => hop.slot));
    const skipped = [...listed.skipped];
    const outcome = { added: 0, updated: 0, removed: 0, kept: 0 };
    let changed = false;
    for (const entry of listed.hops) {
      const hop = byKey.get(entry.key);
      if (hop) {
        byKey.delete(entry.key);
        const before = JSON.stringify([hop.host, hop.port, hop.username, hop.password, hop.method]);
        Object.assign(hop, { host: entry.host, port: entry.port, ...entry.fields });
        if (JSON.stringify([hop.host, hop.port, hop.username, hop.password, hop.method]) !== before) {
          outcome.updated += 1;
          changed = true;
        }
        hop.subscriptionGone = false;
        continue;
      }
      const slot = Array.from({ length: MAX_HOPS_PER_NODE }, (_, i) => i + 1).find(
        (candidate) => !slots.has(candidate),
      );
      if (slot === undefined) {
        skipped.push(`line ${entry.line}: the node runs ${MAX_HOPS_PER_NODE} hops already`);
        continue;
      }
      const tag = freeTag(entry.tag, tags);
      slots.add(slot);
      tags.add(tag);
      await this.hops.insert(em, {
        nodeId,
        subscriptionId: id,
        subscriptionKey: entry.key,
        tag,
        kind: entry.kind,
        enabled: true,
        position: await this.hops.nextPosition(em, nodeId),
        host: entry.host,
        port: entry.port,
        note: `from subscription ${sub.name}`.slice(0, 512),
        slot,
        interfaceName: null,
        privateKey: null,
        publicKey: null,
        peerPublicKey: null,
        presharedKey: null,
        allowedIps: [],
        tunnelAddress: null,
        mtu: null,
        keepalive: null,
        ...entry.fields,
      });
      outcome.added += 1;
      changed = true;
    }
    for (const hop of byKey.values()) {
      if (await this.inUse(em, hop.id)) {
        hop.subscriptionGone = true;
        outcome.kept += 1;
        continue;
      }
      await this.hops.delete(em, hop.id);
      outcome.removed += 1;
      changed = true;
    }
    sub.lastFetchedAt = new Date();
    sub.lastError = null;
    sub.skipped = skipped.slice(0, MAX_SKIPPED);
    await em.flush();
    if (changed) await bumpRevisions(em, [nodeId]);
    return outcome;
  }

  /** A rule routes through the hop, a balancer lists it, or it is the node's default: it may not go. */
  private async inUse(em: EntityManager, hopId: string): Promise<boolean> {
    return (
      (await this.hops.rulesUsing(em, hopId)).length > 0 ||
      (await this.hops.balancersUsing(em, hopId)).length > 0 ||
      (await this.hops.isDefault(em, hopId))
    );
  }

  /**
   * A URL the panel may fetch for a manager, as a webhook's: http or https, no credentials in it,
   * not the panel's own or a private address unless settings allow private targets (checked again
   * at every fetch, on the address then resolved).
   */
  private async assertUsableUrl(text: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw badRequest('url must be an http or https URL', 'url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw badRequest('url must be an http or https URL', 'url');
    if (url.username || url.password) throw badRequest('url must not carry a user name or password', 'url');
    if (!(await this.settings.get()).allowPrivateTargets)
      await assertPublicTarget(url.hostname.replace(/^\[(.*)\]$/, '$1'), 'url', 'subscriptions', undefined, true);
  }

  private async limits() {
    return { allowPrivateTargets: (await this.settings.get()).allowPrivateTargets };
  }

  private name(text: string): string {
    const name = text.trim();
    if (name === '') throw badRequest('name must not be empty', 'name');
    return name;
  }

  private interval(seconds: number): number {
    if (seconds !== 0 && seconds < MIN_SUB_INTERVAL_SECONDS)
      throw badRequest(
        `intervalSeconds must be 0 (only when asked for) or at least ${MIN_SUB_INTERVAL_SECONDS}`,
        'intervalSeconds',
      );
    return seconds;
  }

  private write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return mapUniqueViolations(() => this.subs.transaction(work), UNIQUE_FIELDS);
  }
}

/** The listed tag, or with -2, -3, … when another hop of the node has it. */
function freeTag(tag: string, taken: ReadonlySet<string>): string {
  if (!taken.has(tag)) return tag;
  for (let n = 2; ; n++) {
    const candidate = `${tag.slice(0, 64 - String(n).length - 1)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function previewOf(hop: ListedHop): OutboundSubHopDto {
  return {
    line: hop.line,
    tag: hop.tag,
    kind: hop.kind,
    address: formatHopAddress(hop.host, hop.port) ?? '',
    username: hop.fields.username,
    hasPassword: hop.fields.password !== null,
    method: hop.fields.method,
  };
}

/** A URL without what may hold a secret: `https://provider.example/…` (the origin, then an ellipsis when there was more). */
export function urlOrigin(text: string): string {
  try {
    const url = new URL(text);
    const rest = `${url.pathname}${url.search}${url.hash}`;
    return rest === '/' || rest === '' ? `${url.origin}/` : `${url.origin}/…`;
  } catch {
    return '…';
  }
}
