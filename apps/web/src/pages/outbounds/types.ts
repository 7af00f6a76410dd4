import type { Schemas } from '../../api.js';

export type Outbound = Schemas['OutboundDto'];
export type Probe = Schemas['ProbeResultDto'];
export const KINDS = ['socks', 'http', 'shadowsocks', 'wireguard'] as const;
export const METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'] as const;
export const STAGES = ['dns', 'connect', 'handshake', 'firstByte'] as const;
