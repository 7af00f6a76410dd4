import { Injectable } from '@nestjs/common';

/** Reads a target as its routes show it (its id, or null for a one-of-a-kind target like settings); null when gone. */
export type TargetReader = (id: string | null) => Promise<unknown>;

/**
 * Who knows what a target looked like before a change: one reader per target type (the path's
 * resource: `clients`, `settings`), registered where the domains are wired together
 * (audit-readers.ts). A type with no reader is still recorded, with new values only.
 */
@Injectable()
export class AuditTargets {
  private readonly readers = new Map<string, TargetReader>();

  register(targetType: string, reader: TargetReader): void {
    this.readers.set(targetType, reader);
  }

  /** The target as it is now; null when there is no reader, or it cannot be read (gone, or the id names nothing). */
  async read(targetType: string, id: string | null): Promise<unknown> {
    const reader = this.readers.get(targetType);
    if (!reader) return null;
    try {
      return await reader(id);
    } catch {
      return null; // the route itself will say why (404...)
    }
  }
}
