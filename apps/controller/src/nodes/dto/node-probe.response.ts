import { ApiProperty } from '@nestjs/swagger';
import { WIREGUARD_IMPLEMENTATIONS } from '#libs/contracts/node-probe.js';
import { IdField, IntField } from '../../http/api-fields.js';

export class NodeHostFactsDto {
  @ApiProperty({ description: 'The running kernel (`uname -r`)', example: '6.8.0-45-generic' })
  kernel!: string;

  @ApiProperty({ description: 'PRETTY_NAME of /etc/os-release, else the OS type', example: 'Ubuntu 24.04.1 LTS' })
  os!: string;

  @ApiProperty({ example: 'x64' })
  arch!: string;

  @ApiProperty()
  hostname!: string;

  @IntField({ minimum: 1, description: 'CPUs the agent may use' })
  cpus!: number;

  @ApiProperty({ minimum: 0 })
  memoryTotalBytes!: number;

  @ApiProperty({ minimum: 0, description: 'MemAvailable of /proc/meminfo' })
  memoryAvailableBytes!: number;

  @ApiProperty({ minimum: 0 })
  uptimeSeconds!: number;

  @ApiProperty({ type: [Number], description: 'Load averages over 1, 5 and 15 minutes' })
  load!: number[];
}

export class NodeWireGuardFactsDto {
  @ApiProperty({
    enum: WIREGUARD_IMPLEMENTATIONS,
    description: 'What new interfaces use: the kernel module when it works, else wireguard-go, else none',
  })
  implementation!: (typeof WIREGUARD_IMPLEMENTATIONS)[number];

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The kernel module's version when loaded as a module (null when built in or absent)",
  })
  kernelModule!: string | null;

  @ApiProperty({ type: String, nullable: true, description: '`wg --version`; null when wireguard-tools is missing' })
  tools!: string | null;

  @ApiProperty({ type: String, nullable: true, description: '`wireguard-go --version`; null when not installed' })
  wireguardGo!: string | null;
}

export class NodeProbeDto {
  @IdField()
  nodeId!: string;

  @ApiProperty()
  nodeName!: string;

  @ApiProperty({
    minimum: 0,
    description: "Panel to agent and back over the node's queue, ms by the panel's clock (to about 10 ms)",
  })
  roundTripMs!: number;

  @ApiProperty({ description: "The agent's clock minus the panel's, ms (rough: within the round trip)" })
  clockOffsetMs!: number;

  @ApiProperty({ description: 'The version the agent runs' })
  agentVersion!: string;

  @ApiProperty({ description: "The panel's version" })
  panelVersion!: string;

  @ApiProperty({
    enum: ['same', 'older', 'newer', 'different'],
    description: "The agent's version against the panel's (the rule of the security warning about old agents)",
  })
  versionSkew!: 'same' | 'older' | 'newer' | 'different';

  @ApiProperty({
    type: String,
    nullable: true,
    description: "What to do when the agent's version is not the panel's; null when they match",
  })
  versionWarning!: string | null;

  @ApiProperty({ description: 'When the agent answered, ms since the epoch by its clock' })
  answeredAt!: number;

  @ApiProperty({ type: NodeHostFactsDto })
  host!: NodeHostFactsDto;

  @ApiProperty({ type: NodeWireGuardFactsDto })
  wireguard!: NodeWireGuardFactsDto;

  @ApiProperty({ type: String, nullable: true, description: '`nft --version`; null when nftables is missing' })
  nft!: string | null;
}
