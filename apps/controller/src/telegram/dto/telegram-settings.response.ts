import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';
import { IntField } from '../../http/api-fields.js';
import { TELEGRAM_LANGUAGES, type TelegramLanguage } from '../telegram-settings.js';

export class OperatorChatViewDto {
  @IntField({ description: "Telegram's chat id" })
  chatId!: number;

  @ApiProperty({ format: 'uuid' })
  userId!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The user’s name; null when the user was deleted' })
  username!: string | null;

  @ApiProperty({ enum: USER_ROLES, nullable: true, description: 'What the chat may do; null: nothing' })
  role!: UserRole | null;
}

export class TelegramSettingsDto {
  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ description: 'Whether a bot token is stored (the token itself is never shown)' })
  tokenSet!: boolean;

  @ApiProperty({ type: [OperatorChatViewDto] })
  operatorChats!: OperatorChatViewDto[];

  @ApiProperty({ enum: TELEGRAM_LANGUAGES })
  customerLanguage!: TelegramLanguage;

  @ApiProperty()
  sendBackups!: boolean;

  @IntField()
  backupMaxBytes!: number;
}
