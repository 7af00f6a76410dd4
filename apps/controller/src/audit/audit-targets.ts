import { Injectable } from '@nestjs/common';
import { nameOf } from './audit-changes.js';

/** Reads a target as its routes show it (its id, or null for a one-of-a-kind target like settings); null when gone. */
export type TargetReader = (id: string | null) => Promise<unknown>;
/** Reads only a target's name (for the log's target name); undefined or null when gone or nameless. */
export type TargetNameReader = (id: string | null) => Promise<string | null | undefined>;

/**
 * Who knows what a target looked like before a change: one reader per target type (the path's
 * resource: `clients`, `settings`), registered where the domains are wired together
 * (audit-readers.ts). A type with no reader is still recorded, with new values only.
 */
@Injectable()
export class AuditTargets {
  private readonly readers = new Map<string, TargetReader>();
  private readonly nameReaders = new Map<string, TargetNameReader>();

  /** `nameReader`: a cheaper read of the name alone, for actions that need no old values (see name). */
  register(targetType: string, reader: TargetReader, nameReader?: TargetNameReader): void {
    this.readers.set(targetType, reader);
    if (nameReader) this.nameReaders.set(targetType, nameReader);
    else this.nameReaders.delete(targetType);
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

  /**
   * The target's name now, for an action on a target that records no old values (POST
   * clients/{id}/devices names its client). Read alone when the type has a name reader: the
   * whole view of a client reads every device, which took 100 ms of a device addition's answer
   * for a client of 420 devices (docs/benchmarks.md, agent propagation).
   */
  async name(targetType: string, id: string | null): Promise<string | null> {
    const reader = this.nameReaders.get(targetType);
    if (!reader) return nameOf(await this.read(targetType, id));
    try {
      const name = await reader(id);
      return typeof name === 'string' ? name.slice(0, 256) : null;
    } catch {
      return null; // the route itself will say why (404...)
    }
  }
}
