/** Built-in outbounds every node has: traffic leaves through the uplink, or is dropped. */
export const BUILTIN_OUTBOUNDS = ['direct', 'blocked'] as const;
export type BuiltinOutbound = (typeof BUILTIN_OUTBOUNDS)[number];
