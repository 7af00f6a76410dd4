import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OUTBOUND_KINDS } from '../outbound.entity.js';
import { OUTBOUND_TAG } from '#libs/contracts/routing.js';
import { IdField } from '../../http/api-fields.js';
import { OptionalNotNull } from '../../http/validators.js';
import { CreateOutboundDto, PROBE_MODES, type ProbeMode } from './outbound.dto.js';
import { ProbeResultDto } from './outbound.response.js';

/** A WireGuard file is a few hundred bytes; 64 KiB leaves room for comments and refuses a blob. */
export const MAX_SHARE_TEXT = 65_536;

export class ParseOutboundDto {
  @ApiProperty({
    description:
      'A share link (ss:// SIP002 or legacy base64, socks5:// or socks://, http:// with user:password@) or the text of a WireGuard .conf file',
    example: 'socks5://user:secret@203.0.113.7:1080#upstream',
    minLength: 1,
    maxLength: MAX_SHARE_TEXT,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_SHARE_TEXT)
  text!: string;

  @ApiPropertyOptional({ description: "The hop's tag; default: the link's name (#...) or kind and host" })
  @OptionalNotNull()
  @IsString()
  @Matches(OUTBOUND_TAG, { message: 'tag must be 1..64 characters of A-Z, a-z, 0-9, "_" and "-"' })
  tag?: string;
}

export class ParsedOutboundDto {
  @ApiProperty({
    type: CreateOutboundDto,
    description: 'A body POST /api/outbounds accepts as it is (add nodeId for another node than the local one)',
  })
  outbound!: CreateOutboundDto;

  @ApiProperty({
    type: [String],
    description: "What the link or file set that a hop does not use (a WireGuard file's DNS)",
  })
  ignored!: string[];
}

export class CheckAllQueryDto {
  @ApiPropertyOptional({ description: 'The node (its id); defaults to the local node' })
  @IsOptional()
  @IsString()
  nodeId?: string;

  @ApiPropertyOptional({ default: 'http', description: 'tcp or http, as for one hop' })
  @IsOptional()
  @IsIn(PROBE_MODES, { message: 'mode must be tcp or http' })
  mode?: ProbeMode;
}

export class HopCheckDto {
  @IdField()
  id!: string;

  @ApiProperty()
  tag!: string;

  @ApiProperty({ type: ProbeResultDto })
  result!: ProbeResultDto;
}

export class OutboundConfigDto {
  @IdField()
  id!: string;

  @ApiProperty()
  tag!: string;

  @ApiProperty({ enum: OUTBOUND_KINDS })
  kind!: string;

  @ApiProperty({ enum: ['wg-quick', 'link'], nullable: true, type: String })
  format!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "wireguard: a wg-quick file of this side; socks, http, shadowsocks: a share link (parse reads it back). Secrets only for the owner's session; a shadowsocks link without its password is null. null for the built-ins",
  })
  text!: string | null;

  @ApiProperty({ description: 'The secrets were left out (not the owner signed in with a session)' })
  secretsHidden!: boolean;
}

export class KeyPairDto {
  @ApiProperty({ description: 'base64 of 32 bytes, as wg genkey prints it; not stored anywhere' })
  privateKey!: string;

  @ApiProperty({ description: 'Its public key, as wg pubkey prints it' })
  publicKey!: string;
}
