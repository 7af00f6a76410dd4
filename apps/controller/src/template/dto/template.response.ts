import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HOP_KINDS, SHADOWSOCKS_METHODS } from '#libs/contracts/routing.js';
import { IntField, OptionalIntField } from '../../http/api-fields.js';
import { AmneziaParamsViewDto } from '../../interfaces/dto/interface.response.js';
import { INTERFACE_MODES } from '../../interfaces/interface.entity.js';
import { RoutingBasicDto } from '../../routing/dto/routing.response.js';
import { RULE_NETWORKS } from '../../routing/routing-rule.entity.js';
import { SettingsDto } from '../../settings/dto/settings.response.js';

/**
 * One template, as GET answers it and PUT takes it (docs/template.md). Rows name each other by
 * name (node name, interface name, outbound tag), never by id, so a template moves between panels.
 * Fields marked "owner's session only" are secrets: present only when the owner asks with a session.
 */

const SECRET = "Secret: present only for the owner's session; on import, absent keeps (or generates) the key";

export class TemplateNodeDto {
  @ApiProperty({ description: 'Unique; matches a node of the panel on import' }) name!: string;
  @ApiProperty() address!: string;
  @ApiProperty() note!: string;
}

export class TemplateInterfaceDto {
  @ApiProperty({ description: "The node's name" }) node!: string;
  @ApiProperty({ description: 'Unique per node; matches with node on import' }) name!: string;
  @ApiProperty({ enum: INTERFACE_MODES }) mode!: string;
  @IntField({ minimum: 1, maximum: 65535 }) listenPort!: number;
  @ApiProperty() subnet!: string;
  @ApiProperty() endpointHost!: string;
  @IntField() mtu!: number;
  @ApiProperty({ type: [String] }) dns!: string[];
  @ApiProperty({ type: String, nullable: true }) natInterface!: string | null;
  @ApiProperty() enabled!: boolean;
  @ApiPropertyOptional({ type: AmneziaParamsViewDto, nullable: true, description: 'amnezia mode only' })
  awg?: AmneziaParamsViewDto | null;
  @ApiPropertyOptional({ description: `The server's private key. ${SECRET}` }) privateKey?: string;
}

export class TemplateHostDto {
  @ApiProperty({ description: "The interface's node's name" }) node!: string;
  @ApiProperty({ description: "The interface's name" }) interface!: string;
  @ApiProperty({ description: 'Matches with node and interface on import (regardless of case)' }) name!: string;
  @ApiProperty() address!: string;
  @IntField({ minimum: 0, maximum: 65535 }) port!: number;
  @IntField() priority!: number;
  @ApiProperty() enabled!: boolean;
}

export class TemplateOutboundDto {
  @ApiProperty({ description: "The node's name" }) node!: string;
  @ApiProperty({ description: 'Matches with node on import' }) tag!: string;
  @ApiProperty({ enum: HOP_KINDS }) kind!: string;
  @ApiProperty() enabled!: boolean;
  @IntField({ minimum: 0 }) position!: number;
  @ApiProperty({ description: 'host:port' }) address!: string;
  @ApiProperty() note!: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'socks and http' }) username?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: `socks, http and shadowsocks. ${SECRET}` })
  password?: string | null;
  @ApiPropertyOptional({ enum: SHADOWSOCKS_METHODS, description: 'shadowsocks' }) method?: string;
  @ApiPropertyOptional({ description: `wireguard. ${SECRET}` }) privateKey?: string;
  @ApiPropertyOptional({ description: 'wireguard' }) peerPublicKey?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: `wireguard. ${SECRET}` }) presharedKey?:
    string | null;
  @ApiPropertyOptional({ type: [String], description: 'wireguard' }) allowedIps?: string[];
  @ApiPropertyOptional({ description: 'wireguard' }) tunnelAddress?: string;
  @OptionalIntField({ description: 'wireguard' }) mtu?: number;
  @OptionalIntField({ description: 'wireguard' }) keepalive?: number;
}

export class TemplateRuleDto {
  @ApiProperty({ description: 'Matches with the node on import' }) name!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: [String] }) sourceIps!: string[];
  @ApiProperty({ type: [String] }) sourcePorts!: string[];
  @ApiProperty({ type: String, enum: RULE_NETWORKS, nullable: true }) network!: string | null;
  @ApiProperty({ type: [String] }) destIps!: string[];
  @ApiProperty({ type: [String] }) domains!: string[];
  @ApiProperty({ type: [String] }) ports!: string[];
  @ApiProperty({ type: [String], description: 'Client names (clients are not part of the template)' })
  clients!: string[];
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiProperty({ type: [String], description: 'Interface names of the node' }) interfaces!: string[];
  @ApiProperty({ description: 'An outbound tag of the node, or direct / blocked' }) outboundTag!: string;
}

export class TemplateRoutingDto {
  @ApiProperty({ description: "The node's name" }) node!: string;
  @ApiProperty({ type: RoutingBasicDto }) basic!: RoutingBasicDto;
  @ApiProperty({ type: [TemplateRuleDto], description: 'In matching order' }) rules!: TemplateRuleDto[];
}

export class TemplateDto {
  @ApiPropertyOptional({ type: [TemplateNodeDto] }) nodes?: TemplateNodeDto[];
  @ApiPropertyOptional({ type: [TemplateInterfaceDto] }) interfaces?: TemplateInterfaceDto[];
  @ApiPropertyOptional({ type: [TemplateHostDto] }) hosts?: TemplateHostDto[];
  @ApiPropertyOptional({
    type: [TemplateOutboundDto],
    description: 'Built-in outbounds (direct, blocked) are not listed',
  })
  outbounds?: TemplateOutboundDto[];
  @ApiPropertyOptional({ type: [TemplateRoutingDto] }) routing?: TemplateRoutingDto[];
  @ApiPropertyOptional({ type: SettingsDto }) settings?: SettingsDto;
}

export class TemplateSectionCountsDto {
  @IntField({ minimum: 0 }) nodes!: number;
  @IntField({ minimum: 0 }) interfaces!: number;
  @IntField({ minimum: 0 }) hosts!: number;
  @IntField({ minimum: 0 }) outbounds!: number;
  @IntField({ minimum: 0, description: 'Nodes whose basic routing was written' }) routing!: number;
  @IntField({ minimum: 0 }) rules!: number;
  @IntField({ minimum: 0, description: 'Settings keys changed' }) settings!: number;
}

export class TemplateSkippedDto {
  @ApiProperty({ description: 'The row, e.g. routing.0.rules.3' }) path!: string;
  @ApiProperty() reason!: string;
}

export class TemplateImportResultDto {
  @ApiProperty({ type: TemplateSectionCountsDto }) created!: TemplateSectionCountsDto;
  @ApiProperty({
    type: TemplateSectionCountsDto,
    description: 'Rows matched by name (written even when nothing differed)',
  })
  updated!: TemplateSectionCountsDto;
  @ApiProperty({ type: [TemplateSkippedDto] }) skipped!: TemplateSkippedDto[];
}
