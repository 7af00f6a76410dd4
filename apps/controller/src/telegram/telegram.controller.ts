import { Body, Controller } from '@nestjs/common';
import { MANAGERS, OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { UpdateTelegramSettingsDto } from './dto/telegram-settings.dto.js';
import { TelegramSettingsDto } from './dto/telegram-settings.response.js';
import { TelegramSettingsService } from './telegram-settings.service.js';

/** The Telegram bot's settings (docs/telegram.md); W-UI's notification test is notifications/' own, through every channel. */
@Controller()
export class TelegramController {
  constructor(private readonly settings: TelegramSettingsService) {}

  @Route({
    method: 'GET',
    path: 'settings/telegram',
    group: 'settings',
    roles: MANAGERS,
    summary: "The Telegram bot's settings: whether it runs, whether a token is set (never the token), operator chats",
    response: TelegramSettingsDto,
  })
  get() {
    return this.settings.view();
  }

  @Route({
    method: 'PATCH',
    path: 'settings/telegram',
    group: 'settings',
    roles: OWNER_ONLY,
    summary:
      'Change the Telegram bot: token (write-only), on/off, operator chats (each speaks for a user and may do what their role may), customer language, backups to the owner',
    example: {
      enabled: true,
      token: '123456789:AAE-example-token-from-BotFather-000',
      operatorChats: [{ chatId: 5000000000, userId: '00000000-0000-4000-8000-000000000000' }],
    },
    response: TelegramSettingsDto,
    audit: { target: 'telegram' },
  })
  update(@Body() body: UpdateTelegramSettingsDto) {
    return this.settings.update(body);
  }
}
