/**
 * How recent a handshake must be for a device to count as online. WireGuard renews a session's
 * handshake every 2 minutes while packets flow (profiles keep alive every 25 s), so a live
 * device's handshake is never older than that plus one report interval. Here, below both the
 * clients and the interfaces that count online devices, so the two cannot disagree.
 */
export const ONLINE_WINDOW_MS = 180_000;

export function isOnline(lastHandshake: Date | null, now = Date.now()): boolean {
  return lastHandshake !== null && now - lastHandshake.getTime() < ONLINE_WINDOW_MS;
}
