import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { OptionalNotNull } from '../../../http/validators.js';

/** PATCH /api/settings/mail: the fields given are validated and written together. */
export class UpdateMailSettingsDto {
  @ApiPropertyOptional({ description: 'Send mailed events (needs host and recipients)' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'SMTP server name or address; not private unless settings allow private targets; empty clears',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(253)
  host?: string;

  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(65535)
  port?: number;

  @ApiPropertyOptional({ description: 'TLS from the first byte (port 465); false: STARTTLS when offered' })
  @OptionalNotNull()
  @IsBoolean()
  secure?: boolean;

  @ApiPropertyOptional({ description: 'SMTP user; empty: no authentication' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(256)
  // It goes into the SMTP dialogue: a line break there would start a command of its own.
  @Matches(/^[^\p{Cc}\u2028\u2029]*$/u, { message: 'user must not hold control characters' })
  user?: string;

  @ApiPropertyOptional({
    description: 'Write-only: never answered (passwordSet says whether one is kept); empty clears',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(512)
  password?: string;

  @ApiPropertyOptional({ description: 'Sender address; empty: the user' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(254)
  // An address and nothing else: a header line made of it cannot grow a second header.
  @ValidateIf((body: { from?: string }) => body.from !== undefined && body.from !== '')
  @IsEmail({}, { message: 'from must be a mail address' })
  from?: string;

  @ApiPropertyOptional({ type: [String], description: "The operators' addresses mailed events go to" })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ArrayUnique({ message: 'recipients must not repeat an address' })
  @IsString({ each: true })
  @IsEmail({}, { each: true, message: 'each of recipients must be a mail address' })
  recipients?: string[];
}

export class MailSettingsDto {
  @ApiProperty()
  enabled!: boolean;

  @ApiProperty()
  host!: string;

  @ApiProperty({ type: 'integer' })
  port!: number;

  @ApiProperty()
  secure!: boolean;

  @ApiProperty()
  user!: string;

  @ApiProperty({ description: 'Whether a password is kept (the password itself is never answered)' })
  passwordSet!: boolean;

  @ApiProperty()
  from!: string;

  @ApiProperty({ type: [String] })
  recipients!: string[];
}

export class MailTestDto {
  @ApiPropertyOptional({ description: 'Where the test mail goes; absent: the configured recipients' })
  @OptionalNotNull()
  @IsString()
  @IsEmail({}, { message: 'to must be a mail address' })
  to?: string;
}

export class TestOutcomeDto {
  @ApiProperty()
  ok!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Why it failed (the server’s answer, a timeout)' })
  error!: string | null;
}
