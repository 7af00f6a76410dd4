import { Inject, Injectable } from '@nestjs/common';
import { LockMode, MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { ApplyResult } from '#libs/contracts/node-queue.js';
import type { ProbeResult } from '#libs/contracts/routing.js';
import { agentState, isOffline, isUnmanaged, type AgentState } from '../system/agent-state.js';
import type { WarrenConfig } from '../config/config.js';
import { WARREN_CONFIG } from '../runtime.js';
import { Node } from '../revisions/node.entity.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { balancerTargets, type BalancerStrategy, type PickHop } from './balancer-pick.js';
import { formatHopAddress } from './hop-address.js';
import { Outbound, type OutboundKind } from './outbound.entity.js';
import { OutboundSubscription } from './outbound-subscription.entity.js';
import type { HopState } from './dto/outbound.response.js';
import { OutboundTransition, type HopHealth } from './outbound-transition.entity.js';
import { setPositions } from '../database/positions.js';
import { NotificationEvents } from '../notifications/events/notification-events.js';

export interface OutboundView {
  id: string;
  nodeId: string;
  tag: string;
  kind: OutboundKind;
  builtin: boolean;
  enabled: boolean;
  position: number;
  address: string | null;
  username: string | null;
  hasPassword: boolean;
  method: string | null;
  wireguard: {
    publicKey: string;
    peerPublicKey: string;
    hasPresharedKey: boolean;
    allowedIps: string[];
    tunnelAddress: string;
    mtu: number;
    keepalive: number;
    interfaceName: string;
  } | null;
  slot: number | null;
  note: string;
  state: HopState;
  stateError: string | null;
  lastCheckAt: Date | null;
  latencyMs: number | null;
  lastError: string | null;
  egressIp: string | null;
  subscriptionId: string | null;
  subscriptionGone: boolean;
  traffic: { upBytes: number; downBytes: number; since: Date };
  createdAt: Date;
  updatedAt: Date;
}

/** What must be unique among a node's outbounds. */
export interface OutboundPlacement {
  id: string;
  tag: string;
  slot: number | null;
  interfaceName: string | null;
}

export type NewOutbound = Omit<
  Outbound,
  | 'id'
  | 'node'
  | 'createdAt'
  | 'updatedAt'
  | 'lastCheckAt'
  | 'latencyMs'
  | 'lastError'
  | 'egressIp'
  | 'health'
  | 'healthChangedAt'
  | 'subscription'
  | 'subscriptionKey'
  | 'subscriptionGone'
  | 'upBytes'
  | 'downBytes'
  | 'trafficSince'
> & { nodeId: string; subscriptionId?: string; subscriptionKey?: string };

/** A hop's health changing with a check (null: it had never been checked). */
export interface HealthTransition {
  outboundId: string;
  nodeId: string;
  tag: string;
  from: HopHealth | null;
  to: HopHealth;
  error: string | null;
  at: Date;
}

export function isBuiltin(kind: OutboundKind): kind is 'direct' | 'blocked' {
  return kind === 'direct' || kind === 'blocked';
}

/** A node's agent as the hops' states need it: its state now (system/'s one rule) and its last apply. */
export interface AgentReport {
  nodeName: string;
  state: AgentState;
  connected: boolean;
  lastApply: ApplyResult | null;
}

/**
 * A hop's state as its node's agent last reported it (see OutboundDto.state). A node whose agent
 * is not linked runs nothing the panel can vouch for: every enabled hop of it, the built-ins
 * too, is `offline`, not the state it last reported.
 */
function hopState(row: Outbound, agent: AgentReport | undefined): { state: HopState; stateError: string | null } {
  if (!row.enabled && !isBuiltin(row.kind)) return { state: 'disabled', stateError: null };
  if (agent && isOffline(agent.state)) return { state: 'offline', stateError: null };
  if (isBuiltin(row.kind)) return { state: 'up', stateError: null };
  const outcome = agent?.connected
    ? agent.lastApply?.outbounds?.find((candidate) => candidate.tag === row.tag)
    : undefined;
  if (!outcome) return { state: 'unknown', stateError: null };
  // Running, but its last check failed: the upstream does not answer (issue 19 item 9).
  if (outcome.state === 'up' && row.health === 'down')
    return { state: 'down', stateError: row.lastError ?? 'the last check failed' };
  return { state: outcome.state, stateError: outcome.error ?? null };
}

function view(row: Outbound, agent: AgentReport | undefined): OutboundView {
  // Built field by field: passwords and private keys must never reach a response, whatever the entity grows.
  const wireguard =
    row.kind === 'wireguard'
      ? {
          publicKey: row.publicKey ?? '',
          peerPublicKey: row.peerPublicKey ?? '',
          hasPresharedKey: row.presharedKey != null,
          allowedIps: [...row.allowedIps],
          tunnelAddress: row.tunnelAddress ?? '',
          mtu: row.mtu ?? 0,
          keepalive: row.keepalive ?? 0,
          interfaceName: row.interfaceName ?? '',
        }
      : null;
  return {
    id: row.id,
    nodeId: row.node.id,
    tag: row.tag,
    kind: row.kind,
    builtin: isBuiltin(row.kind),
    enabled: row.enabled,
    position: row.position,
    address: formatHopAddress(row.host ?? null, row.port ?? null),
    username: row.username ?? null,
    hasPassword: row.password != null,
    method: row.method ?? null,
    wireguard,
    slot: row.slot ?? null,
    note: row.note,
    ...hopState(row, agent),
    lastCheckAt: row.lastCheckAt ?? null,
    latencyMs: row.latencyMs ?? null,
    lastError: row.lastError ?? null,
    egressIp: row.egressIp ?? null,
    subscriptionId: row.subscription?.id ?? null,
    subscriptionGone: row.subscriptionGone,
    traffic: { upBytes: row.upBytes, downBytes: row.downBytes, since: row.trafficSince },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Outbound rows, their locks and views. Routing rules and basics (routing/, which sits above
 * outbounds/) and node_agents (nodes/) are read by table name, as the one-way dependency order wants.
 */
@Injectable()
export class OutboundsRepository {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    /** Whether this controller runs an agent for the local node (isUnmanaged). */
    @Inject(WARREN_CONFIG) private readonly config: Pick<WarrenConfig, 'localAgent'>,
    private readonly notifications: NotificationEvents,
  ) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(work);
  }

  async list(nodeId: string): Promise<OutboundView[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(Outbound, { node: nodeId }, { orderBy: { position: 'asc', tag: 'asc' } });
    const agent = (await this.agents(em, [nodeId])).get(nodeId);
    // The built-ins first (direct, blocked), then the hops by position and tag.
    const rank = (row: Outbound) => (row.kind === 'direct' ? 0 : row.kind === 'blocked' ? 1 : 2);
    return rows.sort((a, b) => rank(a) - rank(b)).map((row) => view(row, agent));
  }

  async get(id: string): Promise<OutboundView | null> {
    const em = this.orm.em.fork();
    const row = await em.findOne(Outbound, { id });
    if (!row) return null;
    return view(row, (await this.agents(em, [row.node.id])).get(row.node.id));
  }

  /** The row with its secrets, for building a probe job. */
  async find(id: string): Promise<Outbound | null> {
    return this.orm.em.fork().findOne(Outbound, { id });
  }

  async nodeExists(nodeId: string): Promise<boolean> {
    return (await this.orm.em.fork().count(Node, { id: nodeId })) > 0;
  }

  async localNodeId(): Promise<string | null> {
    return (await this.orm.em.fork().findOne(Node, { isLocal: true }, { fields: ['id'] }))?.id ?? null;
  }

  /** Locks the outbound row until the transaction ends and reads it fresh (before the node row: the lock order). */
  async lock(em: EntityManager, id: string): Promise<Outbound | null> {
    return em.findOne(Outbound, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  }

  async placementsOnNode(em: EntityManager, nodeId: string): Promise<OutboundPlacement[]> {
    const rows = await em.find(Outbound, { node: nodeId }, { fields: ['id', 'tag', 'slot', 'interfaceName'] });
    return rows.map((row) => ({
      id: row.id,
      tag: row.tag,
      slot: row.slot ?? null,
      interfaceName: row.interfaceName ?? null,
    }));
  }

  /** The position after the node's last hop (0 for its first): a new hop is listed last. */
  async nextPosition(em: EntityManager, nodeId: string): Promise<number> {
    const [row] = await em.execute<{ next: number }[]>(
      `select coalesce(max(position) + 1, 0)::int as next from outbounds
        where node_id = ? and kind not in ('direct', 'blocked')`,
      [nodeId],
    );
    return row.next;
  }

  /** The node's outbounds, the built-ins included, by id: what an order may name. */
  async kindsOnNode(em: EntityManager, nodeId: string): Promise<Map<string, OutboundKind>> {
    const rows = await em.find(Outbound, { node: nodeId }, { fields: ['id', 'kind'] });
    return new Map(rows.map((row) => [row.id, row.kind]));
  }

  /** Sets position = index in `ids` (the node's hops); rows already there are left alone. */
  async setOrder(em: EntityManager, nodeId: string, ids: readonly string[]): Promise<void> {
    await setPositions(em, 'outbounds', nodeId, ids);
  }

  /** Tunnel interface names on the node (interfaces/): a hop's interface must not take one. */
  async tunnelNames(em: EntityManager, nodeId: string): Promise<Set<string>> {
    const rows = await em.execute<{ name: string }[]>('select name from interfaces where node_id = ?', [nodeId]);
    return new Set(rows.map((row) => row.name));
  }

  async insert(em: EntityManager, input: NewOutbound): Promise<string> {
    const { nodeId, subscriptionId, ...fields } = input;
    const row = em.create(Outbound, {
      ...fields,
      node: em.getReference(Node, nodeId),
      ...(subscriptionId ? { subscription: em.getReference(OutboundSubscription, subscriptionId) } : {}),
    });
    await em.flush();
    return row.id;
  }

  async save(em: EntityManager): Promise<void> {
    await em.flush();
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.nativeDelete(Outbound, { id });
  }

  /** Zeroes the traffic of one outbound, or of every outbound of a node, from now on. */
  async resetTraffic(em: EntityManager, where: { id: string } | { nodeId: string }): Promise<void> {
    const [column, value] = 'id' in where ? ['id', where.id] : ['node_id', where.nodeId];
    await em.execute(`update outbounds set up_bytes = 0, down_bytes = 0, traffic_since = now() where ${column} = ?`, [
      value,
    ]);
  }

  /** The rules routing through this outbound, in their order (routing_rules, by table name). */
  async rulesUsing(em: EntityManager, outboundId: string): Promise<{ id: string; name: string }[]> {
    return em.execute<{ id: string; name: string }[]>(
      'select id, name from routing_rules where outbound_id = ? order by position, created_at',
      [outboundId],
    );
  }

  /** The balancers listing this outbound as a hop (balancers, by table name). */
  async balancersUsing(em: EntityManager, outboundId: string): Promise<{ id: string; tag: string }[]> {
    return em.execute<{ id: string; tag: string }[]>('select id, tag from balancers where ? = any(hops) order by tag', [
      outboundId,
    ]);
  }

  /** The tags of the node's balancers (balancers, by table name): a new hop's tag must differ. */
  async balancerTags(em: EntityManager, nodeId: string): Promise<string[]> {
    const rows = await em.execute<{ tag: string }[]>('select tag from balancers where node_id = ?', [nodeId]);
    return rows.map((row) => row.tag);
  }

  /** Whether a balancer of the node has this tag (balancers, by table name): tags name both. */
  async balancerTagged(em: EntityManager, nodeId: string, tag: string): Promise<boolean> {
    const rows = await em.execute<{ id: string }[]>('select id from balancers where node_id = ? and tag = ?', [
      nodeId,
      tag,
    ]);
    return rows.length > 0;
  }

  /** Whether the outbound is its node's default outbound (routing_basics, by table name). */
  async isDefault(em: EntityManager, outboundId: string): Promise<boolean> {
    const rows = await em.execute<{ node_id: string }[]>(
      'select node_id from routing_basics where default_outbound_id = ?',
      [outboundId],
    );
    return rows.length > 0;
  }

  /**
   * The last check's result, kept on the outbound (its lastCheckAt, latency, error, egress, and
   * health: a passing check clears an old error). A change of health is recorded as a transition,
   * in the same transaction; the transition is returned (null when health did not change).
   */
  async recordCheck(id: string, result: ProbeResult, at: Date): Promise<HealthTransition | null> {
    return this.transaction(async (em) => {
      const row = await this.lock(em, id);
      if (!row) return null;
      const health: HopHealth = result.ok ? 'up' : 'down';
      const error = result.ok ? null : (result.error ?? result.errorClass ?? 'failed').slice(0, 500);
      const from = row.health ?? null;
      row.lastCheckAt = at;
      row.latencyMs = result.ok && result.latencyMs !== null ? Math.round(result.latencyMs) : null;
      row.lastError = error;
      row.egressIp = result.ok ? result.egressIp : null;
      // A check that cannot say (tcp mode on a WireGuard hop) leaves health as it was.
      if (isBuiltin(row.kind) || from === health || result.errorClass === 'unsupported') {
        await em.flush();
        return null;
      }
      row.health = health;
      row.healthChangedAt = at;
      const transition: HealthTransition = {
        outboundId: id,
        nodeId: row.node.id,
        tag: row.tag,
        from,
        to: health,
        error,
        at,
      };
      const record = em.create(OutboundTransition, {
        outbound: row,
        nodeId: row.node.id,
        tag: row.tag,
        fromState: from,
        toState: health,
        error,
        at,
      });
      await em.flush();
      // A balancer whose pick this changes moves the node (its agent gets the new hop).
      if (await this.balancerPickMoved(em, row.node.id, id, from, health)) await bumpRevisions(em, [row.node.id]);
      // Down from any state (a first check that fails too), up only from down: a new hop's first
      // passing check is no news. Keyed by the transition, which is itself written once.
      if (health === 'down' || from === 'down')
        await this.notifications.record(em, {
          kind: health === 'down' ? 'hop.down' : 'hop.up',
          crossing: `hop.${health}:${id}:${record.id}`,
          subject: { type: 'hop', id, name: row.tag },
          details: { nodeId: row.node.id, error },
          occurredAt: at,
        });
      return transition;
    });
  }

  /** Whether a balancer of the node listing the hop sends traffic elsewhere after its health changed. */
  private async balancerPickMoved(
    em: EntityManager,
    nodeId: string,
    hopId: string,
    from: HopHealth | null,
    to: HopHealth,
  ): Promise<boolean> {
    const balancers = await em.execute<{ strategy: BalancerStrategy; hops: string[]; override_id: string | null }[]>(
      'select strategy, hops, override_id from balancers where node_id = ? and ? = any(hops)',
      [nodeId, hopId],
    );
    if (balancers.length === 0) return false;
    const hops = await em.execute<PickHop[]>(
      `select id, tag, enabled, health from outbounds where node_id = ? and kind not in ('direct', 'blocked')`,
      [nodeId],
    );
    const [basic] = await em.execute<{ fail_closed: boolean }[]>(
      'select fail_closed from routing_basics where node_id = ?',
      [nodeId],
    );
    const failClosed = basic?.fail_closed ?? true;
    const withHealth = (health: HopHealth | null) =>
      new Map(hops.map((hop) => [hop.id, hop.id === hopId ? { ...hop, health } : hop]));
    const [before, after] = [withHealth(from), withHealth(to)];
    return balancers.some((row) => {
      const rule = { strategy: row.strategy, hops: row.hops, overrideId: row.override_id };
      return (
        JSON.stringify(balancerTargets(rule, before, failClosed)) !==
        JSON.stringify(balancerTargets(rule, after, failClosed))
      );
    });
  }

  /** A hop's health transitions, newest first. */
  async transitions(outboundId: string, limit = 50): Promise<HealthTransition[]> {
    const rows = await this.orm.em
      .fork()
      .find(OutboundTransition, { outbound: outboundId }, { orderBy: { at: 'desc' }, limit });
    return rows.map((row) => ({
      outboundId,
      nodeId: row.nodeId,
      tag: row.tag,
      from: row.fromState ?? null,
      to: row.toState,
      error: row.error ?? null,
      at: row.at,
    }));
  }

  /**
   * Hops due for a periodic check: enabled, not a built-in, on a node whose agent is connected (a
   * check of an absent agent's hop would only time out), and checked longer than `due(id)` ms ago
   * or never.
   */
  async dueForCheck(now: Date, due: (id: string) => number): Promise<string[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(
      Outbound,
      { enabled: true, kind: { $nin: ['direct', 'blocked'] } },
      { fields: ['id', 'node', 'lastCheckAt'] },
    );
    const agents = await this.agents(em, [...new Set(rows.map((row) => row.node.id))]);
    return rows
      .filter((row) => agents.get(row.node.id)?.connected)
      .filter((row) => !row.lastCheckAt || now.getTime() - row.lastCheckAt.getTime() >= due(row.id))
      .map((row) => row.id);
  }

  /** Every hop's state on every node (for the metrics). */
  async hopStates(): Promise<{ nodeId: string; id: string; tag: string; state: HopState }[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(Outbound, { kind: { $nin: ['direct', 'blocked'] } });
    const agents = await this.agents(em, [...new Set(rows.map((row) => row.node.id))]);
    return rows.map((row) => ({
      nodeId: row.node.id,
      id: row.id,
      tag: row.tag,
      state: hopState(row, agents.get(row.node.id)).state,
    }));
  }

  /** The agent of one node now (undefined: no such node). */
  async agentOf(nodeId: string): Promise<AgentReport | undefined> {
    return (await this.agents(this.orm.em.fork(), [nodeId])).get(nodeId);
  }

  /**
   * Each node's agent now, judged with system/'s one rule (a node without an agent row has never
   * been enrolled), and its last apply.
   */
  private async agents(em: EntityManager, nodeIds: readonly string[]): Promise<Map<string, AgentReport>> {
    const rows = await em.execute<
      {
        node_id: string;
        node_name: string;
        is_local: boolean;
        has_credential: boolean | null;
        connected: boolean | null;
        last_seen_at: Date | null;
        last_apply: ApplyResult | null;
      }[]
    >(
      `select n.id as node_id, n.name as node_name, n.is_local, a.credential_hash is not null as has_credential, a.connected,
              a.last_seen_at, a.last_apply
         from nodes n left join node_agents a on a.node_id = n.id
        where n.id = any(array[?]::uuid[])`,
      [[...nodeIds]],
    );
    const now = Date.now();
    return new Map(
      rows.map((row) => {
        const state = agentState(
          {
            hasCredential: row.has_credential ?? false,
            connected: row.connected ?? false,
            lastSeenAt: row.last_seen_at && new Date(row.last_seen_at),
            unmanaged: isUnmanaged({ isLocal: row.is_local }, this.config),
          },
          now,
        );
        return [
          row.node_id,
          { nodeName: row.node_name, state, connected: state === 'connected', lastApply: row.last_apply },
        ];
      }),
    );
  }
}
