import { addressCount, type Cidr, intToIp, ipToInt, Ipv4FormatError, parseCidr } from './ipv4.js';

/**
 * An interface subnet needs 2..22 host bits: /31 and /32 leave no room once network, gateway
 * and broadcast are reserved, and anything wider than /10 (4M addresses) is far beyond what
 * one WireGuard interface can carry while making the allocation bitmap needlessly large.
 */
export const MIN_SUBNET_PREFIX = 10;
export const MAX_SUBNET_PREFIX = 30;

/** Addresses an allocation can never return: network (.0), gateway (first host), broadcast. */
const RESERVED_AT_START = 2;
const RESERVED_AT_END = 1;

export type UsedAddresses = Iterable<string | number>;

export interface AllocateOptions {
  /**
   * The address handed out last (persist it per interface). Allocation resumes just above it so
   * a freed address is reused only after the pool wraps around; this keeps a revoked device's
   * address from reaching a new device while old sessions or logs still refer to it. Without a
   * cursor the highest address in use plays that role; a cursor outside the subnet is ignored.
   */
  cursor?: string | number | null;
}

/** Parses a subnet and applies the interface rules; messages are safe to show to an operator. */
export function parseInterfaceSubnet(s: string): Cidr {
  const c = parseCidr(s);
  if (c.prefix < MIN_SUBNET_PREFIX || c.prefix > MAX_SUBNET_PREFIX) {
    throw new Ipv4FormatError(
      `subnet "${s}" must have a prefix between /${MIN_SUBNET_PREFIX} and /${MAX_SUBNET_PREFIX}`,
    );
  }
  return c;
}

/** The server's own address on the tunnel; also the default DNS for clients. */
export function gatewayAddress(subnet: Cidr | string): string {
  return intToIp(toCidr(subnet).network + 1);
}

/** How many devices the pool can hold. */
export function poolCapacity(subnet: Cidr | string): number {
  return Math.max(0, addressCount(toCidr(subnet)) - RESERVED_AT_START - RESERVED_AT_END);
}

/** True when `ip` lies in the subnet and is not one of its reserved addresses. */
export function isAssignable(subnet: Cidr | string, ip: string | number): boolean {
  const c = toCidr(subnet);
  const offset = (typeof ip === 'string' ? ipToInt(ip) : ip) - c.network;
  return offset >= RESERVED_AT_START && offset < addressCount(c) - RESERVED_AT_END;
}

/** The next free address after the cursor (wrapping), or null when the pool is full. */
export function allocate(subnet: Cidr | string, used: UsedAddresses, options: AllocateOptions = {}): string | null {
  return allocateMany(subnet, used, 1, options)?.[0] ?? null;
}

/**
 * `count` addresses in allocation order, or null if the pool cannot hold all of them: callers
 * creating several devices at once want all-or-nothing, not a partial batch.
 */
export function allocateMany(
  subnet: Cidr | string,
  used: UsedAddresses,
  count: number,
  options: AllocateOptions = {},
): string[] | null {
  const c = toCidr(subnet);
  const pool = new PoolBitmap(c);
  let cursor = pool.markUsed(used);
  const given = options.cursor;
  if (given !== undefined && given !== null) {
    const offset = (typeof given === 'string' ? ipToInt(given) : given) - c.network;
    if (offset >= 0 && offset < pool.size) cursor = offset;
  }

  const result: string[] = [];
  for (let i = 0; i < count; i++) {
    let free = pool.findFree(cursor + 1, pool.size);
    if (free < 0) free = pool.findFree(0, cursor + 1);
    if (free < 0) return null;
    pool.set(free);
    cursor = free;
    result.push(intToIp(c.network + free));
  }
  return result;
}

function toCidr(subnet: Cidr | string): Cidr {
  return typeof subnet === 'string' ? parseInterfaceSubnet(subnet) : subnet;
}

/**
 * One bit per address, indexed by offset from the network address. A /16 with 60,000 devices
 * is a 2,048-word scan where full words are skipped whole, instead of probing a string set
 * once per candidate address.
 */
class PoolBitmap {
  readonly size: number;
  private readonly words: Uint32Array;

  constructor(private readonly cidr: Cidr) {
    this.size = addressCount(cidr);
    this.words = new Uint32Array(Math.ceil(this.size / 32));
    for (let i = 0; i < RESERVED_AT_START; i++) this.set(i);
    for (let i = this.size - RESERVED_AT_END; i < this.size; i++) this.set(i);
  }

  set(offset: number): void {
    this.words[offset >>> 5] |= 1 << (offset & 31);
  }

  /** Marks every in-subnet address and returns the highest offset in use (1 = only gateway). */
  markUsed(used: UsedAddresses): number {
    let highest = RESERVED_AT_START - 1;
    for (const ip of used) {
      const offset = (typeof ip === 'string' ? ipToInt(ip) : ip) - this.cidr.network;
      // Addresses outside the subnet (stale rows after a subnet change) cannot collide here.
      if (offset < 0 || offset >= this.size) continue;
      this.set(offset);
      if (offset > highest && offset < this.size - RESERVED_AT_END) highest = offset;
    }
    return highest;
  }

  /** Lowest clear offset in [from, to), or -1. */
  findFree(from: number, to: number): number {
    let offset = from;
    while (offset < to) {
      const word = this.words[offset >>> 5];
      if ((offset & 31) === 0 && word === 0xffffffff) {
        offset += 32;
        continue;
      }
      if ((word & (1 << (offset & 31))) === 0) return offset;
      offset++;
    }
    return -1;
  }
}
