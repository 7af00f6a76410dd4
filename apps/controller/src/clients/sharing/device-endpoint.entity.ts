import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Device } from '../device.entity.js';

/**
 * An address a device's endpoint moved to (the evidence of GET /api/sharing): one row per device
 * and address, bounded (rows older than the retention, or past the newest per device, are pruned).
 */
export const DeviceEndpoint = defineEntity({
  name: 'DeviceEndpoint',
  tableName: 'device_endpoints',
  indexes: [{ properties: ['lastSeen'] }],
  properties: {
    device: () => p.manyToOne(Device).deleteRule('cascade').primary(),
    /** The endpoint's address without its port (a NAT changes ports; the address is the place). */
    address: p.string().length(64).primary(),
    firstSeen: p.datetime(),
    /** The last time the device's endpoint moved to this address. */
    lastSeen: p.datetime(),
    /** How often the endpoint moved to this address. */
    moves: p.integer().default(1),
  },
});
export type DeviceEndpoint = InferEntity<typeof DeviceEndpoint>;
