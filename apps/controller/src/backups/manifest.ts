import { z } from 'zod';

/** The archive kind and layout version a panel writes; a restore refuses any other. */
export const BACKUP_FORMAT = 'warren-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

/** Paths a backup archive may hold, and nothing else (checked on extraction). */
export const TABLE_PART = /^database\/([a-z_][a-z0-9_]{0,62})\.copy$/;
export const NODE_PART = /^nodes\/([0-9a-f-]{36})\/host-state\.json$/;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  formatVersion: z.number().int(),
  panelVersion: z.string().max(64),
  /** Within 2000..9999: the backup's name is made from it (backup-YYYYMMDD-HHMMSS). */
  createdAt: z.iso
    .datetime()
    .refine((at) => at >= '2000-01-01' && at < '9999-12-31', 'a time within the years 2000..9998'),
  /** The last migration applied to the database the backup was taken from. */
  migration: z.string().regex(/^Migration\d{14}_[a-z0-9_]+$/),
  tables: z
    .array(
      z.object({
        name: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/),
        columns: z
          .array(z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/))
          .min(1)
          .max(200),
        rows: z.number().int().nonnegative(),
        file: z.string().regex(TABLE_PART),
      }),
    )
    .max(500),
  nodes: z
    .array(
      z.object({
        id: z.uuid(),
        name: z.string().max(200),
        /** collected: the agent answered with its host state; unreachable: it did not in time. */
        state: z.enum(['collected', 'unreachable']),
        error: z.string().max(500).nullable(),
        file: z.string().regex(NODE_PART).nullable(),
      }),
    )
    .max(10_000),
  /** SHA-256 of every part but the manifest, by path. */
  files: z.record(z.string(), sha256),
});
export type Manifest = z.infer<typeof manifestSchema>;
