import { ApiProperty } from '@nestjs/swagger';
import { PROBE_ERROR_CLASSES, SHADOWSOCKS_METHODS } from '#libs/contracts/routing.js';
import { DateTimeField, IdField, IntField } from '../../http/api-fields.js';
import { OUTBOUND_KINDS, type OutboundKind } from '../outbound.entity.js';

export const HOP_STATES = ['up', 'down', 'failed', 'disabled', 'unknown', 'offline'] as const;
export type HopState = (typeof HOP_STATES)[number];

/** A WireGuard hop without its secrets: the private and preshared keys are never shown. */
export class WireguardHopDto {
  @ApiProperty({ description: "This side's public key (give it to the upstream peer)" })
  publicKey!: string;

  @ApiProperty()
  peerPublicKey!: string;

  @ApiProperty()
  hasPresharedKey!: boolean;

  @ApiProperty({ type: [String] })
  allowedIps!: string[];

  @ApiProperty({ example: '10.66.0.2/32' })
  tunnelAddress!: string;

  @IntField()
  mtu!: number;

  @IntField({ minimum: 0 })
  keepalive!: number;

  @ApiProperty({ description: "The hop's host interface on its node" })
  interfaceName!: string;
}

/** What a hop carried for clients (docs/outbounds.md, "Traffic"); the built-ins are not counted. */
export class HopTrafficDto {
  @IntField({ minimum: 0, description: 'Bytes clients sent into the hop (IP packets as they arrived on the tunnel)' })
  upBytes!: number;

  @IntField({ minimum: 0, description: 'Bytes that came back to clients from the hop' })
  downBytes!: number;

  @DateTimeField({ description: 'Counted since then: the hop was created or its traffic last reset' })
  since!: string;
}

export class OutboundDto {
  @IdField()
  id!: string;

  @IdField()
  nodeId!: string;

  @ApiProperty()
  tag!: string;

  @ApiProperty({ enum: OUTBOUND_KINDS })
  kind!: OutboundKind;

  @ApiProperty({ description: 'direct and blocked: always there, cannot be changed or removed' })
  builtin!: boolean;

  @ApiProperty()
  enabled!: boolean;

  @IntField({ minimum: 0 })
  position!: number;

  @ApiProperty({ type: String, nullable: true, description: 'host:port; null for the built-ins' })
  address!: string | null;

  @ApiProperty({ type: String, nullable: true })
  username!: string | null;

  @ApiProperty({ description: 'A password is set (it is never shown)' })
  hasPassword!: boolean;

  @ApiProperty({ type: String, enum: SHADOWSOCKS_METHODS, nullable: true })
  method!: string | null;

  @ApiProperty({ type: WireguardHopDto, nullable: true, description: 'wireguard hops only' })
  wireguard!: WireguardHopDto | null;

  @IntField({
    nullable: true,
    minimum: 1,
    maximum: 250,
    description: "The hop's slot on its node (its routing table, fwmark and redirector port); null for the built-ins",
  })
  slot!: number | null;

  @ApiProperty()
  note!: string;

  @ApiProperty({
    enum: HOP_STATES,
    description:
      "up or failed: what the node's agent reported in its last apply (built-ins are up while the agent is linked); down: running, but its last check (periodic or asked for) failed, stateError says why; disabled; unknown: the agent is linked but has not applied the hop yet; offline: the node's agent is not linked (never enrolled, never seen, or gone), so nothing it last reported holds (built-ins included)",
  })
  state!: HopState;

  @ApiProperty({ type: String, nullable: true, description: 'Why the hop failed on its node' })
  stateError!: string | null;

  @DateTimeField({ nullable: true })
  lastCheckAt!: string | null;

  @IntField({ nullable: true, minimum: 0 })
  latencyMs!: number | null;

  @ApiProperty({ type: String, nullable: true })
  lastError!: string | null;

  @ApiProperty({ type: String, nullable: true })
  egressIp!: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The outbound subscription that made the hop (its refreshes update it); null: made by hand',
  })
  subscriptionId!: string | null;

  @ApiProperty({
    description: "Gone from its subscription's list but kept because a rule or the default outbound uses it",
  })
  subscriptionGone!: boolean;

  @ApiProperty({
    type: HopTrafficDto,
    description: "The hop's traffic as its node's agent reported it (at most a report interval behind)",
  })
  traffic!: HopTrafficDto;

  @DateTimeField()
  createdAt!: string;

  @DateTimeField()
  updatedAt!: string;
}

export class ProbeStagesDto {
  @ApiProperty({ type: Number, nullable: true, description: 'ms resolving names' })
  dns!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'ms to connect to the hop' })
  connect!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: "ms of the hop's handshake" })
  handshake!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'ms until the first byte of the answer' })
  firstByte!: number | null;
}

export class ProbeResultDto {
  @ApiProperty()
  ok!: boolean;

  @ApiProperty({ type: Number, nullable: true })
  latencyMs!: number | null;

  @ApiProperty({ type: ProbeStagesDto })
  stages!: ProbeStagesDto;

  @ApiProperty({
    type: String,
    enum: PROBE_ERROR_CLASSES,
    nullable: true,
    description:
      "timeout also when no agent answered in time; agent-not-linked (at once, nothing sent or stored) when the node's agent is not linked",
  })
  errorClass!: string | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The address the test server saw, when it says' })
  egressIp!: string | null;
}
