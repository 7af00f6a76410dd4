import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Device } from '../clients/device.entity.js';

/**
 * A one-time download link for one config of one device (POST /api/devices/{id}/profile/link):
 * only the SHA-256 of its token is kept; `usedAt` is set by the one download that wins.
 */
export const DownloadLink = defineEntity({
  name: 'DownloadLink',
  tableName: 'download_links',
  properties: {
    tokenHash: p.string().length(64).primary(),
    device: () => p.manyToOne(Device).deleteRule('cascade').index(),
    interfaceId: p.uuid(),
    /** The host (dial target) the config dials; null: the interface's own endpoint. */
    hostId: p.uuid().nullable(),
    expiresAt: p.datetime().index(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type DownloadLink = InferEntity<typeof DownloadLink>;
