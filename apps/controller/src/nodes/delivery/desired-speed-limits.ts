import type { DesiredSpeedLimit } from '#libs/contracts/desired-state.js';

/** What the peers query adds for speed limits: whose account it is and that client's rate. */
export interface PeerRow {
  interface_id: string;
  ip: string;
  client_id: string;
  /** int8: pg hands it over as a string. 0 = unlimited. */
  rate_bits_per_sec: string | number;
}

/**
 * Groups the peers of limited clients by interface, then by client: a client's devices on one
 * interface share its limit there (one class per direction on the host, docs/agent-host.md).
 * Interfaces with no limited client are absent, so their desired state carries no `speedLimits`.
 */
export function speedLimitsByInterface(rows: readonly PeerRow[]): Map<string, DesiredSpeedLimit[]> {
  const byInterface = new Map<string, Map<string, DesiredSpeedLimit>>();
  for (const row of rows) {
    const rate = Number(row.rate_bits_per_sec);
    if (!(rate > 0)) continue;
    let clients = byInterface.get(row.interface_id);
    if (!clients) byInterface.set(row.interface_id, (clients = new Map()));
    const limit = clients.get(row.client_id);
    if (limit) limit.ips.push(row.ip);
    else clients.set(row.client_id, { clientId: row.client_id, rateBitsPerSec: rate, ips: [row.ip] });
  }
  return new Map([...byInterface].map(([id, clients]) => [id, [...clients.values()]]));
}
