import { Body, Controller } from '@nestjs/common';
import { OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { Route } from '../../http/route.decorator.js';
import { MailSettingsDto, MailTestDto, TestOutcomeDto, UpdateMailSettingsDto } from './dto/mail.dto.js';
import { MailSettingsService } from './mail-settings.service.js';

/** SMTP settings and W-UI's test mail: the owner only (a server password; mail to any address). */
@Controller()
export class MailSettingsController {
  constructor(private readonly mail: MailSettingsService) {}

  @Route({
    method: 'GET',
    path: 'settings/mail',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'SMTP settings for mailed events (the password is never answered)',
    response: MailSettingsDto,
  })
  get() {
    return this.mail.mail();
  }

  @Route({
    method: 'PATCH',
    path: 'settings/mail',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Change SMTP settings; the fields given are validated and written together',
    example: {
      enabled: true,
      host: 'smtp.example.com',
      port: 587,
      user: 'warren',
      password: 'secret',
      from: 'warren@example.com',
      recipients: ['ops@example.com'],
    },
    response: MailSettingsDto,
  })
  updateMail(@Body() body: UpdateMailSettingsDto) {
    return this.mail.updateMail(body);
  }

  @Route({
    method: 'POST',
    path: 'settings/mail/test',
    group: 'settings',
    roles: OWNER_ONLY,
    summary: 'Send a test mail with the saved SMTP settings; answers whether the server took it',
    example: { to: 'ops@example.com' },
    status: 200,
    response: TestOutcomeDto,
    errors: [409],
    audit: { action: 'settings.mail-test' },
  })
  testMail(@Body() body: MailTestDto) {
    return this.mail.testMail(body.to);
  }
}
