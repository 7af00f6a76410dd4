/**
 * The names of host network interfaces, as the panel accepts them and as the agent checks them
 * again before any reaches `ip`, `wg`, `wireguard-go` or an nftables ruleset. One definition for
 * both sides, so they cannot drift apart.
 *
 * Linux itself (dev_valid_name) takes 1..15 bytes that are not `/`, `:` or whitespace, other
 * than `.` and `..`. The rules here are narrower, for the tools that read the names after it:
 * - ASCII letters, digits, `_` and `-` (and `.` for uplinks, which VLANs such as eth0.100 carry):
 *   no quotes, spaces or backslashes can reach the quoted name in an nftables ruleset, and no
 *   `/` can turn `<state dir>/<name>.conf` or `/var/run/wireguard/<name>.sock` into another path;
 * - no leading `-`: every tool would read the name as an option (`wireguard-go -f`);
 * - tunnels may not be named `all` or `interfaces`: `wg show all` and `wg show interfaces` are
 *   subcommands, so `wg show <name> peers` would read every interface's peers instead.
 */

/** A tunnel the agent creates: 1..15 of A-Z a-z 0-9 _ -, not starting with `-`, not `all` or `interfaces`. */
export const TUNNEL_NAME = /^(?!-)(?!(?:all|interfaces)$)[A-Za-z0-9_-]{1,15}$/;
export const TUNNEL_NAME_RULE =
  '1..15 characters of A-Z, a-z, 0-9, "_" and "-", not starting with "-", and not "all" or "interfaces"';

/** An existing host uplink NAT goes out through: as above plus `.`, and not `.` or `..`. */
export const UPLINK_NAME = /^(?!-)(?!\.{1,2}$)[A-Za-z0-9_.-]{1,15}$/;
export const UPLINK_NAME_RULE =
  '1..15 characters of A-Z, a-z, 0-9, "_", "." and "-", not starting with "-", and not "." or ".."';

export function isTunnelName(value: unknown): value is string {
  return typeof value === 'string' && TUNNEL_NAME.test(value);
}

export function isUplinkName(value: unknown): value is string {
  return typeof value === 'string' && UPLINK_NAME.test(value);
}
