import { Body, Controller, Param, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { OWNER_ONLY, EVERY_ROLE } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../../http/id.js';
import { Route } from '../../http/route.decorator.js';
import { CurrentPrincipal } from '../current-principal.decorator.js';
import type { Principal } from '../principal.js';
import {
  TotpCodeDto,
  TotpConfirmedDto,
  TotpDisabledDto,
  TotpResetDto,
  TotpStartDto,
  TotpStartedDto,
  TotpStatusDto,
} from './dto/totp.dto.js';
import { TotpService } from './totp.service.js';

/** Two-factor sign-in (W-UI's paths): one's own, and the owner's reset of another user's. */
@Controller()
export class TotpController {
  constructor(private readonly totp: TotpService) {}

  @Route({
    method: 'GET',
    path: 'auth/totp',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: "Whether one's own two-factor sign-in is on, and how many recovery codes are left",
    response: TotpStatusDto,
  })
  status(@CurrentPrincipal() principal: Principal) {
    return this.totp.status(principal.userId);
  }

  @Route({
    method: 'POST',
    path: 'auth/totp/start',
    group: 'auth',
    roles: EVERY_ROLE,
    summary:
      'Start turning on two-factor sign-in (needs the current password): a new TOTP secret and its otpauth URI (shown this once); confirm with a code',
    example: { password: 'correct horse battery staple' },
    response: TotpStartedDto,
    errors: [409, 429],
    sessionOnly: true,
  })
  start(@CurrentPrincipal() principal: Principal, @Body() body: TotpStartDto, @Req() request: FastifyRequest) {
    return this.totp.start(principal, body.password, request.ip);
  }

  @Route({
    method: 'POST',
    path: 'auth/totp/confirm',
    group: 'auth',
    roles: EVERY_ROLE,
    summary:
      'Turn two-factor sign-in on with a code for the started secret; answers the one-time recovery codes (shown this once)',
    example: { code: '123456' },
    response: TotpConfirmedDto,
    errors: [409],
    sessionOnly: true,
  })
  async confirm(@CurrentPrincipal() principal: Principal, @Body() body: TotpCodeDto) {
    const { recoveryCodes } = await this.totp.confirm(principal, body.code);
    return { enabled: true, recoveryCodes };
  }

  @Route({
    method: 'POST',
    path: 'auth/totp/disable',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: 'Turn two-factor sign-in off: needs a current code or an unused recovery code (throttled as sign-in)',
    example: { code: '123456' },
    response: TotpDisabledDto,
    errors: [409, 429],
    sessionOnly: true,
  })
  async disable(@CurrentPrincipal() principal: Principal, @Body() body: TotpCodeDto, @Req() request: FastifyRequest) {
    await this.totp.disable(principal, body.code, request.ip);
    return { enabled: false };
  }

  @Route({
    method: 'POST',
    path: 'admins/:id/reset-2fa',
    group: 'auth',
    roles: OWNER_ONLY,
    summary:
      "Clear a user's two-factor sign-in (a lost phone): they sign in with the password alone until they turn it on again",
    response: TotpResetDto,
    sessionOnly: true,
  })
  async reset(@Param('id', new IdPipe('user')) id: string) {
    await this.totp.reset(id);
    return { id, enabled: false };
  }
}
