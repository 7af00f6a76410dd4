import { Body, Controller } from '@nestjs/common';
import { MANAGERS, OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { NotifySettingsDto, NotifyTestDto, UpdateNotifySettingsDto } from './dto/notify-settings.dto.js';
import { NotifySettingsService } from './notify-settings.service.js';

/**
 * Notification switches (docs/notifications.md): owner and admins. The test through every
 * channel: the owner, as W-UI has it.
 */
@Controller()
export class NotifySettingsController {
  constructor(private readonly notify: NotifySettingsService) {}

  @Route({
    method: 'GET',
    path: 'settings/notify',
    group: 'settings',
    roles: MANAGERS,
    summary: 'Which channels carry which events, and the expiry notice',
    response: NotifySettingsDto,
  })
  get() {
    return this.notify.notify();
  }

  @Route({
    method: 'PATCH',
    path: 'settings/notify',
    group: 'settings',
    // Owner only: the switches decide who hears of sign-ins from new addresses (an admin whose
    // account was misused must not be able to mute them), as the audit log is the owner's.
    roles: OWNER_ONLY,
    summary: 'Turn channels on or off per event kind; set the days before expiry that client.expiring fires',
    example: { expiryNoticeDays: 3, switches: [{ kind: 'node.offline', channel: 'mail', enabled: true }] },
    response: NotifySettingsDto,
  })
  update(@Body() body: UpdateNotifySettingsDto) {
    return this.notify.updateNotify(body);
  }

  @Route({
    method: 'POST',
    path: 'settings/notify/test',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Send a test event through every channel (webhooks, mail, Telegram when present); each reports',
    status: 200,
    response: NotifyTestDto,
    audit: { action: 'settings.notify-test' },
  })
  test() {
    return this.notify.testNotify();
  }
}
