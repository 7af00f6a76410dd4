import { z } from 'zod';

/**
 * Node-side part of a backup: the agent returns what it manages on its host (its state files:
 * WireGuard configs, hop configs, the record of what it applied; and its nftables tables as
 * `nft list` prints them). Restoring never writes these back: the controller's restored desired
 * state is what the agent applies. They are kept for the operator, to see or compare what a host
 * ran when the backup was made.
 */
export const HOST_STATE_JOB = 'host-state';

export const MAX_HOST_STATE_FILES = 1000;
/** One file's content; a larger one is listed with `truncated: true` and no content. */
export const MAX_HOST_STATE_FILE_BYTES = 16 * 1024 * 1024;

export const hostStateSchema = z.object({
  collectedAt: z.number().int().nonnegative(),
  files: z
    .array(
      z.object({
        /** Relative to the agent's data directory. */
        path: z
          .string()
          .min(1)
          .max(512)
          .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[\x20-\x7e]+$/, 'a relative path inside the agent data directory'),
        mode: z.number().int().min(0).max(0o7777),
        contentBase64: z.string().max(Math.ceil(MAX_HOST_STATE_FILE_BYTES / 3) * 4),
        truncated: z.boolean(),
      }),
    )
    .max(MAX_HOST_STATE_FILES),
  /** `nft list table …` of each table the agent created, or null when nft is missing. */
  nftables: z.string().max(MAX_HOST_STATE_FILE_BYTES).nullable(),
});
export type HostState = z.infer<typeof hostStateSchema>;
