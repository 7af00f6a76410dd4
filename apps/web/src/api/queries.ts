import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ApiError, must, type Schemas } from '../api.js';
import { isOfflineAgent } from '../components/node-health.js';
import { useUser } from '../session.js';

/**
 * One place for each resource's cache key and fetcher: pages ask through these hooks, and a
 * change invalidates by the same key (`queryKeys.interfaces`), so a key cannot drift between the
 * page that lists a resource and the forms that pick from it.
 */
export type ClientListQuery = NonNullable<Parameters<typeof listClients>[0]>;
const listClients = (query?: {
  perPage?: number;
  page?: number;
  cursor?: string;
  sort?: 'newest' | 'oldest' | 'name' | 'traffic' | 'remaining' | 'expiry';
  search?: string;
  status?: Schemas['ClientDto']['status'];
  group?: string;
}) => must(api.GET('/api/clients', { params: { query: query ?? {} } }));

export const queryKeys = {
  interfaces: ['interfaces'] as const,
  nodes: ['nodes'] as const,
  hosts: ['hosts'] as const,
  hostGroups: ['hosts', 'groups'] as const,
  hostTags: ['hosts', 'tags'] as const,
  tokens: ['tokens'] as const,
  totp: ['auth', 'totp'] as const,
  backups: ['backups'] as const,
  settings: ['settings'] as const,
  docs: ['docs'] as const,
  overview: ['overview'] as const,
  myOverview: ['overview', 'mine'] as const,
  system: ['system'] as const,
  operators: ['operators'] as const,
  sessions: ['auth', 'sessions'] as const,
  /** Every list of clients (the page's, a picker's): invalidated together after a change. */
  clients: ['clients'] as const,
  clientList: (query: ClientListQuery) => ['clients', query] as const,
  client: (id: string) => ['client', id] as const,
  configs: (clientId: string) => ['configs', clientId] as const,
  subscription: (clientId: string) => ['subscription', clientId] as const,
  /** Every node's outbounds, or one node's. */
  outbounds: (nodeId?: string | null) => (nodeId === undefined ? (['outbounds'] as const) : ['outbounds', nodeId]),
  routing: (nodeId?: string | null) => (nodeId === undefined ? (['routing'] as const) : ['routing', nodeId]),
  systemHistory: (range: string, nodeId: string | null) => ['system-history', range, nodeId] as const,
  /** A client's traffic over a range, or every client's (clientId null: the overview's). */
  usage: (range: string, clientId: string | null) => ['usage', range, clientId] as const,
  template: (section: string) => ['template', section] as const,
  /** The client groups with their defaults (the Groups page's list). */
  groups: ['groups'] as const,
  groupNames: ['groups', 'names'] as const,
};

/** A refetch interval (ms), or off: what a page that watches live state passes. */
interface Watch {
  refetchInterval?: number;
  enabled?: boolean;
}

export function useInterfaces(options: Watch = {}) {
  return useQuery({ queryKey: queryKeys.interfaces, queryFn: () => must(api.GET('/api/interfaces')), ...options });
}

export function useNodes(options: Watch = {}) {
  return useQuery({ queryKey: queryKeys.nodes, queryFn: () => must(api.GET('/api/nodes')), ...options });
}

export function useHosts() {
  return useQuery({ queryKey: queryKeys.hosts, queryFn: () => must(api.GET('/api/hosts')) });
}

export function useHostGroups() {
  return useQuery({ queryKey: queryKeys.hostGroups, queryFn: () => must(api.GET('/api/hosts/groups')) });
}

export function useHostTags() {
  return useQuery({ queryKey: queryKeys.hostTags, queryFn: () => must(api.GET('/api/hosts/tags')) });
}

export function useTotpStatus() {
  return useQuery({ queryKey: queryKeys.totp, queryFn: () => must(api.GET('/api/auth/totp')) });
}

export function useTokens() {
  return useQuery({ queryKey: queryKeys.tokens, queryFn: () => must(api.GET('/api/tokens')) });
}

export function useSettings() {
  return useQuery({ queryKey: queryKeys.settings, queryFn: () => must(api.GET('/api/settings')) });
}

/** GET /api/docs: the same for the whole session. */
export function useDocs() {
  return useQuery({ queryKey: queryKeys.docs, queryFn: () => must(api.GET('/api/docs')), staleTime: Infinity });
}

/** A page of clients; the page before stays on screen while the next one comes. */
export function useClientList(query: ClientListQuery) {
  return useQuery({
    queryKey: queryKeys.clientList(query),
    queryFn: () => listClients(query),
    placeholderData: keepPreviousData,
  });
}

const getClient = (id: string) => must(api.GET('/api/clients/{id}', { params: { path: { id } } }));

export function useClient(id: string) {
  return useQuery({ queryKey: queryKeys.client(id), queryFn: () => getClient(id) });
}

/**
 * One client by id, for `useQueries` (pickers naming chosen ids): a deleted client answers 404,
 * shown as its id and not asked again and again.
 */
export function clientQuery(id: string) {
  return {
    queryKey: queryKeys.client(id),
    queryFn: () => getClient(id),
    retry: (count: number, failure: Error) => !(failure instanceof ApiError && failure.status === 404) && count < 2,
    staleTime: 60_000,
  };
}

/** A node's outbounds; nothing is asked until the node is known. */
export function useOutbounds(nodeId: string | null) {
  return useQuery({
    queryKey: queryKeys.outbounds(nodeId),
    queryFn: () => must(api.GET('/api/outbounds', { params: { query: { nodeId: nodeId! } } })),
    enabled: Boolean(nodeId),
  });
}

/** The overview, asked again every 5 s unless told otherwise (a dialog reading the panel state once). */
/** GET /api/overview: the caller's own clients, and for a reseller their pool and the room left. */
export function useMyOverview(options: Watch = {}) {
  return useQuery({ queryKey: queryKeys.myOverview, queryFn: () => must(api.GET('/api/overview')), ...options });
}

export function useOverview(options: Watch = { refetchInterval: 5000 }) {
  return useQuery({
    queryKey: queryKeys.overview,
    queryFn: () => must(api.GET('/api/overview/full')),
    ...options,
  });
}

/**
 * Interfaces with the name of their node: two nodes may each have a "wg0", so wherever an
 * interface is listed or picked it is named with its node ("wg0 · edge-1"); and whether that
 * node is offline (its agent not linked) or unmanaged (no agent meant to run), so nothing of it
 * is shown as its last reported state or as waiting to be applied. The panel's staff only (a
 * reseller may not read interfaces or nodes: `useInterfaceChoices` is what they get).
 */
export function useInterfacesWithNodes(options: Watch = {}) {
  const staff = useUser().role !== 'reseller';
  const interfaces = useInterfaces({ ...options, enabled: staff && options.enabled !== false });
  const nodes = useNodes({ enabled: staff && options.enabled !== false });
  const byId = new Map((nodes.data ?? []).map((node) => [node.id, node]));
  return {
    data: interfaces.data?.map((entry) => ({
      ...entry,
      nodeName: byId.get(entry.nodeId)?.name ?? '',
      nodeOffline: isOfflineAgent(byId.get(entry.nodeId)?.agent.state),
      // No agent will ever apply it (WARREN_LOCAL_AGENT=off): neither offline nor "applying".
      nodeUnmanaged: byId.get(entry.nodeId)?.agent.state === 'unmanaged',
      // Kept down on purpose (POST /api/tunnels/stop): "stopped", not "applying".
      nodeStopped: byId.get(entry.nodeId)?.tunnelsStopped ?? false,
    })),
  };
}

/**
 * An interface as a picker or a client's details name it. The staff read the whole interface; a
 * reseller gets only what their overview says of the interfaces they may use (id and name), so
 * the node's name and the public key are there for the staff only, and nothing here claims more.
 */
export interface InterfaceChoice {
  id: string;
  name: string;
  nodeName: string;
  /** The interface's public key (what a device's config names as its peer); the staff's only. */
  publicKey?: string;
}

/** The interfaces the signed-in user may attach clients to (every one for the staff). */
export function useInterfaceChoices(): { data: InterfaceChoice[] | undefined } {
  const reseller = useUser().role === 'reseller';
  const mine = useMyOverview({ enabled: reseller });
  const staff = useInterfacesWithNodes();
  if (!reseller)
    return {
      data: staff.data?.map(({ id, name, nodeName, publicKey }) => ({ id, name, nodeName, publicKey })),
    };
  return { data: mine.data?.reseller?.interfaces.map(({ id, name }) => ({ id, name, nodeName: '' })) };
}

/** "wg0 · edge-1": an interface named with its node (the node's name once known). */
export function interfaceLabel(entry: { name: string; nodeName?: string }): string {
  return entry.nodeName ? `${entry.name} · ${entry.nodeName}` : entry.name;
}

/** Select options for interfaces, each named with its node. */
export function useInterfaceOptions() {
  const { data } = useInterfaceChoices();
  return { options: (data ?? []).map((entry) => ({ value: entry.id, label: interfaceLabel(entry) })) };
}

/** Every client group with its defaults (what a client created in it takes for what it leaves out). */
export function useGroups() {
  return useQuery({ queryKey: queryKeys.groups, queryFn: () => must(api.GET('/api/groups')) });
}

/** Every group name the signed-in user may pick (a reseller's too), for the client form's suggestions. */
export function useGroupNames() {
  return useQuery({ queryKey: queryKeys.groupNames, queryFn: () => must(api.GET('/api/groups/names')) });
}
