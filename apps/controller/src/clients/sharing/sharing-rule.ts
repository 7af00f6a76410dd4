import type { EndpointMove } from './sharing.repository.js';

/**
 * Why a device's endpoint moves look like sharing, or null:
 * - `many-addresses`: it moved between at least `maxAddresses` addresses within the window;
 * - `several-at-once`: it keeps coming back to an address it left (two returns at least: A, B, A,
 *   B), which is what one key used from two places at once looks like (WireGuard's endpoint follows
 *   whichever place sent last). A phone that goes from home to work and back returns once.
 */
export type SharingReason = 'many-addresses' | 'several-at-once';

export function sharingReason(addresses: readonly EndpointMove[], maxAddresses: number): SharingReason | null {
  if (addresses.length >= maxAddresses) return 'many-addresses';
  const moves = addresses.reduce((sum, address) => sum + address.moves, 0);
  if (addresses.length >= 2 && moves >= addresses.length + 2) return 'several-at-once';
  return null;
}
