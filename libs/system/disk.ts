import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface DiskUsage {
  used: number;
  total: number;
  percent: number;
}

/**
 * Usage of the filesystem holding `path`, as `df` reports it: `used` is what is allocated,
 * `total` is used plus what an unprivileged process may still write (the blocks ext4 reserves
 * for root are left out), so `percent` is df's Use% and reaches 100 when PostgreSQL (not root)
 * can no longer write. A path that does not exist yet is measured at its nearest existing
 * ancestor: the filesystem it will be created on.
 */
export async function diskUsage(path: string): Promise<DiskUsage> {
  let target = path;
  for (;;) {
    try {
      const stats = await statfs(target);
      const used = (stats.blocks - stats.bfree) * stats.bsize;
      const total = used + stats.bavail * stats.bsize;
      return { used, total, percent: total > 0 ? Math.min(100, (used / total) * 100) : 0 };
    } catch (error) {
      const parent = dirname(target);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === target) throw error;
      target = parent;
    }
  }
}
