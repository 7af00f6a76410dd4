import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { OptionalNotNull } from '../../http/validators.js';
import {
  BOT_TOKEN_PATTERN,
  TELEGRAM_BOUNDS as b,
  TELEGRAM_LANGUAGES,
  type TelegramLanguage,
} from '../telegram-settings.js';

export class OperatorChatDto {
  @ApiProperty({ description: "Telegram's chat id (a private chat's is the person's user id; groups are negative)" })
  @IsInt()
  @Min(-Number.MAX_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  chatId!: number;

  @ApiProperty({ format: 'uuid', description: 'The panel user this chat speaks for: it may do what their role may' })
  @IsUUID('all')
  userId!: string;
}

/** PATCH /api/settings/telegram: every field optional; those given are validated and written together. */
export class UpdateTelegramSettingsDto {
  @ApiPropertyOptional({ description: 'Run the bot (needs a token)' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'password',
    description: "The bot's token from @BotFather (`<id>:<secret>`); null removes it. Never shown again",
  })
  @IsOptional()
  @IsString()
  @MaxLength(b.tokenLength)
  @Matches(BOT_TOKEN_PATTERN, { message: 'token must be a bot token as @BotFather gives it: <digits>:<secret>' })
  token?: string | null;

  @ApiPropertyOptional({
    type: [OperatorChatDto],
    description: `The chats that speak for operators (at most ${b.operatorChats}, each chat once): replaces the list`,
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(b.operatorChats)
  @ValidateNested({ each: true })
  @Type(() => OperatorChatDto)
  operatorChats?: OperatorChatDto[];

  @ApiPropertyOptional({
    enum: TELEGRAM_LANGUAGES,
    description: "A customer's language when their Telegram app does not say en or fa",
  })
  @OptionalNotNull()
  @IsIn(TELEGRAM_LANGUAGES)
  customerLanguage?: TelegramLanguage;

  @ApiPropertyOptional({ description: "Send each backup archive to the owner's chats" })
  @OptionalNotNull()
  @IsBoolean()
  sendBackups?: boolean;

  @ApiPropertyOptional({ description: 'Larger archives are announced, not sent (the Bot API takes at most 50 MB)' })
  @OptionalNotNull()
  @IsInt()
  @Min(b.backupMaxBytes.min)
  @Max(b.backupMaxBytes.max)
  backupMaxBytes?: number;
}
