import { ApiProperty } from '@nestjs/swagger';
import { IdField, IntField } from '../../http/api-fields.js';
import { LOCALES } from '../catalogues.js';
import { WARNING_CODES, WARNING_SEVERITIES } from '../security-warnings.js';

export class SecurityWarningDto {
  @ApiProperty({ enum: WARNING_CODES, description: 'Stable: the web panel words each code in its own language' })
  code!: string;

  @ApiProperty({ enum: WARNING_SEVERITIES })
  severity!: string;

  @ApiProperty({ description: 'One sentence: what is wrong (English)' })
  message!: string;

  @ApiProperty({ description: 'What to do about it (English)' })
  action!: string;
}

export class SecurityWarningsDto {
  @ApiProperty({ type: [SecurityWarningDto], description: 'Most severe first; empty when nothing is wrong' })
  warnings!: SecurityWarningDto[];
}

export class MetaDto {
  @ApiProperty({ example: '0.1.0', description: "The panel's version (its agents ship with the same)" })
  version!: string;

  @ApiProperty({ example: '', description: "The panel's base path (WARREN_BASE_PATH), '' when none" })
  basePath!: string;

  @ApiProperty({ type: [String], enum: LOCALES, description: 'Languages of the web panel (GET /api/i18n/{locale})' })
  locales!: string[];

  @ApiProperty({ enum: LOCALES })
  defaultLocale!: string;

  @ApiProperty({
    type: [String],
    description: 'What this panel can do, for clients that adapt to it (e.g. two-factor: sign-in may ask for a code)',
  })
  features!: string[];
}

export class CatalogueDto {
  @ApiProperty({ enum: LOCALES })
  locale!: string;

  @ApiProperty({ enum: ['ltr', 'rtl'] })
  direction!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The web panel messages by key (nested objects of strings; {{name}} marks a value)',
  })
  messages!: object;
}

export class InterfaceServerConfigDto {
  @IdField()
  nodeId!: string;

  @ApiProperty()
  nodeName!: string;

  @ApiProperty({ description: "The interface's name on its node" })
  interfaceName!: string;

  @ApiProperty({ enum: ['standard', 'amnezia'] })
  mode!: string;

  @IntField({ minimum: 0 })
  peers!: number;

  @ApiProperty({
    description:
      'The file the agent loads with `wg syncconf` (or `awg`): private and preshared keys only for the owner signed in with a session; otherwise those lines are left out and secretsHidden is true',
  })
  config!: string;

  @ApiProperty()
  secretsHidden!: boolean;
}

export class ServerConfigsDto {
  @ApiProperty({
    type: [InterfaceServerConfigDto],
    description: 'Every enabled interface of every node, by node then name',
  })
  configs!: InterfaceServerConfigDto[];
}
