import { isTunnelName, isUplinkName, TUNNEL_NAME_RULE, UPLINK_NAME_RULE } from '#libs/contracts/interface-names.js';
import { isIpv4 } from '#libs/wireguard/ipv4.js';

/**
 * The last check before a value from a desired state (or from the agent's own files) becomes an
 * argument of `ip`, `wg` or `wireguard-go`. The controller validates every one of them and the
 * job's schema again, but the agent is what runs them as root, so it trusts neither: each
 * function returns the argument text or throws, and the apply turns that into the interface's
 * outcome. Commands always get argv arrays (command-runner.ts), never a shell; these checks keep
 * a value from being read as an option or another keyword by the tool itself.
 */

export class HostArgumentError extends Error {
  override name = 'HostArgumentError';
}

/** A tunnel's name, for `ip link … dev <name>`, `wg … <name>`, `wireguard-go <name>` and file names. */
export function tunnelArg(name: string): string {
  if (!isTunnelName(name))
    throw new HostArgumentError(`interface name ${JSON.stringify(name)} refused: it must be ${TUNNEL_NAME_RULE}`);
  return name;
}

/** An uplink's name, for the quoted `oifname "<name>"` of the NAT ruleset. */
export function uplinkArg(name: string): string {
  if (!isUplinkName(name))
    throw new HostArgumentError(
      `NAT interface ${JSON.stringify(name)} is not an interface name: it must be ${UPLINK_NAME_RULE}`,
    );
  return name;
}

/** An MTU in the panel's bounds, for `ip link set … mtu <n>`. */
export function mtuArg(mtu: number): string {
  if (!Number.isInteger(mtu) || mtu < 576 || mtu > 9000)
    throw new HostArgumentError(`MTU ${JSON.stringify(mtu)} refused: it must be a whole number in 576..9000`);
  return String(mtu);
}

/** An IPv4 address with a prefix length, for `ip address replace|del <address> …`. */
export function addressArg(local: string, prefixlen: number): string {
  if (!isIpv4(local) || !Number.isInteger(prefixlen) || prefixlen < 0 || prefixlen > 32) {
    throw new HostArgumentError(
      `address ${JSON.stringify(`${local}/${prefixlen}`)} refused: it must be an IPv4 address with a prefix length`,
    );
  }
  return `${local}/${prefixlen}`;
}
