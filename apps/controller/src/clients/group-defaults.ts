import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest } from '../http/api-error.js';
import type { ClientsRepository } from './clients.repository.js';
import type { CreateClientDto } from './dto/client.dto.js';

/** What a creation (one client or a batch) may leave to its group. */
export type GroupDefaultsInput = Pick<
  CreateClientDto,
  'groups' | 'quotaBytes' | 'deviceLimit' | 'rateBitsPerSec' | 'interfaceIds' | 'expiresAt' | 'startOnFirstUse'
>;

/**
 * A client created in a defined group (the first of its groups that is one) takes the group's
 * defaults for what its creation leaves out: quota, expiry (days from now), device limit,
 * interfaces and speed limit (docs/groups.md). The same for POST /api/clients and a batch.
 */
export async function withGroupDefaults<T extends GroupDefaultsInput>(
  clients: ClientsRepository,
  em: EntityManager,
  dto: T,
  now: Date,
): Promise<T & { interfaceIds: string[] }> {
  const group = dto.groups?.length ? await clients.groupDefaults(em, dto.groups) : undefined;
  const filled = { ...dto };
  if (group) {
    filled.quotaBytes ??= group.quotaBytes;
    filled.deviceLimit ??= group.deviceLimit;
    filled.rateBitsPerSec ??= group.rateBitsPerSec;
    if (filled.interfaceIds === undefined && group.interfaceIds.length > 0) filled.interfaceIds = group.interfaceIds;
    if (dto.expiresAt === undefined && !dto.startOnFirstUse && group.expiryDays > 0)
      filled.expiresAt = new Date(now.getTime() + group.expiryDays * 86_400_000).toISOString();
  }
  if (!filled.interfaceIds?.length)
    throw badRequest("interfaceIds must name at least one interface (or the client's group give some)", 'interfaceIds');
  return filled as T & { interfaceIds: string[] };
}
