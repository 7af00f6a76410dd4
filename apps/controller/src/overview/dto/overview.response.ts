import { ApiProperty } from '@nestjs/swagger';
import { DateTimeField, IntField } from '../../http/api-fields.js';
import { SystemSnapshotDto } from '../../system/dto/system.response.js';
import { DATABASE_BACKENDS, type DatabaseBackend } from '../panel-state.js';

const BYTES = 'bytes; exact up to 2^53 - 1, beyond that the nearest JSON number';

export class NodeStatesDto {
  @IntField({ minimum: 0 }) total!: number;
  @IntField({ minimum: 0, description: 'Agent connected, applied revision = desired revision' }) inSync!: number;
  @IntField({ minimum: 0, description: 'Agent connected, applied revision below the desired one' }) behind!: number;
  @IntField({ minimum: 0, description: 'Agent not connected (never enrolled, enrolled but never seen, or gone)' })
  offline!: number;
  @IntField({
    minimum: 0,
    description: 'No agent meant to run (the local node with WARREN_LOCAL_AGENT=off): neither offline nor behind',
  })
  unmanaged!: number;
}

export class EnforcementRunDto {
  @DateTimeField({ description: 'The time the run applied expiry and reset cycles for' }) at!: string;
  @IntField({ minimum: 0, description: 'Clients moved to expired' }) expired!: number;
  @IntField({ minimum: 0, description: 'Clients whose reset cycle renewed' }) renewed!: number;
  @IntField({ minimum: 0, description: 'Of those, exhausted clients back to active' }) revived!: number;
  @IntField({ minimum: 0, description: 'Nodes whose desired state changed' }) nodes!: number;
}

export class LastBackupDto {
  @ApiProperty({ example: 'backup-20261125-100037.tar.gz' }) name!: string;
  @IntField({ minimum: 0, description: 'bytes' }) size!: number;
  @DateTimeField() createdAt!: string;
  @ApiProperty({ pattern: '^[0-9a-f]{64}$' }) sha256!: string;
}

export class PanelStateDto {
  @ApiProperty({ example: '0.1.0' }) version!: string;
  @DateTimeField({ description: "When this controller's process started" }) startedAt!: string;
  @ApiProperty({ minimum: 0, description: "Seconds since this controller's process started" }) uptimeSeconds!: number;
  @ApiProperty({
    enum: DATABASE_BACKENDS,
    description: 'embedded: the PostgreSQL the panel runs in its data directory; external: DATABASE_URL',
  })
  database!: DatabaseBackend;
  @ApiProperty({
    enum: ['redis', 'postgres'],
    description: "BullMQ's store: Redis (REDIS_URL) or its PostgreSQL backend",
  })
  queue!: 'redis' | 'postgres';
  @ApiProperty({
    description:
      "Whether remote nodes' agents can be enrolled: false on the PostgreSQL queue (no REDIS_URL), where only the local node works; the add-node dialog says so before a node is added",
  })
  remoteNodes!: boolean;
  @ApiProperty({ type: NodeStatesDto }) nodes!: NodeStatesDto;
  @ApiProperty({
    type: EnforcementRunDto,
    nullable: true,
    description: 'The last run of the expiry and reset-cycle job; null before the first',
  })
  lastEnforcement!: EnforcementRunDto | null;
  @ApiProperty({
    type: LastBackupDto,
    nullable: true,
    description: 'The newest backup archive; null when there is none',
  })
  lastBackup!: LastBackupDto | null;
}

export class ClientCountsDto {
  @IntField({ minimum: 0 }) total!: number;
  @IntField({ minimum: 0 }) active!: number;
  @IntField({ minimum: 0 }) disabled!: number;
  @IntField({ minimum: 0 }) expired!: number;
  @IntField({ minimum: 0 }) exhausted!: number;
}

export class DeviceCountsDto {
  @IntField({ minimum: 0 }) total!: number;
  @IntField({
    minimum: 0,
    description: 'Devices with a handshake within the last onlineWindowSeconds (counted by the second)',
  })
  online!: number;
  @IntField({ minimum: 1 }) onlineWindowSeconds!: number;
}

export class UsageTotalsDto {
  @IntField({ minimum: 0, description: `Sent by all clients since their last reset, ${BYTES}` }) upBytes!: number;
  @IntField({ minimum: 0, description: `Received by all clients since their last reset, ${BYTES}` }) downBytes!: number;
  @IntField({ minimum: 0, description: `The clients' usedBytes (what quotas count), ${BYTES}` }) usedBytes!: number;
}

export class QuotaTotalsDto {
  @IntField({ minimum: 0, description: `The sum of the quotas of clients that have one, ${BYTES}` })
  totalBytes!: number;
  @IntField({ minimum: 0, description: 'Clients with a quota' }) limitedClients!: number;
  @IntField({ minimum: 0, description: 'Clients without a quota (quotaBytes 0)' }) unlimitedClients!: number;
}

export class InventoryDto {
  @ApiProperty({ type: ClientCountsDto }) clients!: ClientCountsDto;
  @ApiProperty({ type: DeviceCountsDto }) devices!: DeviceCountsDto;
  @IntField({ minimum: 0 }) interfaces!: number;
  @IntField({ minimum: 0 }) nodes!: number;
  @IntField({
    minimum: 0,
    nullable: true,
    description: 'Outbounds (hops); null while this panel does not count them yet',
  })
  outbounds!: number | null;
  @ApiProperty({ type: UsageTotalsDto }) usage!: UsageTotalsDto;
  @ApiProperty({ type: QuotaTotalsDto }) quota!: QuotaTotalsDto;
}

export class OverviewDto {
  @DateTimeField() generatedAt!: string;
  @ApiProperty({ type: SystemSnapshotDto, description: "The controller's host and every node, as GET /api/system" })
  telemetry!: SystemSnapshotDto;
  @ApiProperty({ type: PanelStateDto }) panel!: PanelStateDto;
  @ApiProperty({ type: InventoryDto }) inventory!: InventoryDto;
}
