import { Body, Controller, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EVERY_ROLE } from '#libs/contracts/user-roles.js';
import { Route } from '../http/route.decorator.js';
import { WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';
import { AuthService } from './auth.service.js';
import { CurrentPrincipal } from './current-principal.decorator.js';
import { ChangePasswordDto } from './dto/change-password.dto.js';
import { LoginDto } from './dto/login.dto.js';
import {
  LoggedOutDto,
  MeDto,
  PasswordChangedDto,
  SessionDto,
  SessionsEndedDto,
  SignedInDto,
} from './dto/auth.response.js';
import { DeletedDto } from '../http/api-fields.js';
import { IdPipe } from '../http/id.js';
import { SESSION_COOKIE, type Principal } from './principal.js';
import { assertSignInNotFromElsewhere } from './request-site.js';

@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  @Route({
    method: 'POST',
    path: 'auth/login',
    group: 'auth',
    summary:
      'Sign in with username and password (and `code` when two-factor sign-in is on); returns a session token (also set as an HttpOnly cookie), or `{"needCode": true}`',
    example: { username: 'admin', password: 'correct horse battery staple' },
    public: true,
    // A session is of no use until its token is answered: one write, before the answer.
    audit: { target: 'users', self: true, fields: false, beforeAnswer: true },
    response: SignedInDto,
    errors: [401, 403, 429],
  })
  async login(@Body() body: LoginDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    assertSignInNotFromElsewhere(request, this.config.publicUrl);
    const signedIn = await this.auth.login(
      body.username,
      body.password,
      { ip: request.ip, userAgent: request.headers['user-agent'] },
      body.code,
    );
    if ('needCode' in signedIn) return signedIn;
    reply.setCookie(SESSION_COOKIE, signedIn.token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      path: this.config.basePath || '/',
      expires: signedIn.expiresAt,
    });
    return signedIn;
  }

  @Route({
    method: 'GET',
    path: 'auth/me',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: 'Who the presented credential belongs to',
    response: MeDto,
    beforePasswordChange: true,
  })
  me(@CurrentPrincipal() principal: Principal) {
    return { user: userView(principal), via: principal.via, mustChangePassword: principal.mustChangePassword };
  }

  @Route({
    method: 'PATCH',
    path: 'auth/me',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: "Change one's own password (the current one is required); the user's other sessions end, this one stays",
    example: { currentPassword: 'correct horse battery staple', newPassword: 'a new and longer passphrase' },
    audit: { action: 'auth.password', target: 'users', self: true },
    response: PasswordChangedDto,
    errors: [429],
    beforePasswordChange: true,
    sessionOnly: true,
  })
  updateMe(@CurrentPrincipal() principal: Principal, @Body() body: ChangePasswordDto, @Req() request: FastifyRequest) {
    return this.changePassword(principal, body, request);
  }

  @Route({
    method: 'POST',
    path: 'auth/password',
    group: 'auth',
    roles: EVERY_ROLE,
    summary:
      "Change one's own password (W-UI's path; the same as PATCH /api/auth/me): the current one is required, the user's other sessions end",
    example: { currentPassword: 'correct horse battery staple', newPassword: 'a new and longer passphrase' },
    response: PasswordChangedDto,
    errors: [429],
    beforePasswordChange: true,
    sessionOnly: true,
  })
  async changePassword(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePasswordDto,
    @Req() request: FastifyRequest,
  ) {
    const sessionsEnded = await this.auth.changePassword(principal, body.currentPassword, body.newPassword, request.ip);
    return { user: userView(principal), sessionsEnded };
  }

  @Route({
    method: 'GET',
    path: 'auth/sessions',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: "The caller's own signed-in sessions: when and from where each signed in, when it was last seen",
    response: [SessionDto],
  })
  sessions(@CurrentPrincipal() principal: Principal) {
    return this.auth.sessions(principal);
  }

  @Route({
    method: 'DELETE',
    path: 'auth/sessions',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: "End every session of the caller's but the one making the request",
    response: SessionsEndedDto,
    sessionOnly: true,
  })
  async endOtherSessions(@CurrentPrincipal() principal: Principal) {
    return { sessionsEnded: await this.auth.endOtherSessions(principal) };
  }

  @Route({
    method: 'DELETE',
    path: 'auth/sessions/:id',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: "End one of the caller's own sessions (another user's answers 404)",
    response: DeletedDto,
    sessionOnly: true,
  })
  endSession(@CurrentPrincipal() principal: Principal, @Param('id', new IdPipe('session')) id: string) {
    return this.auth.endSession(principal, id);
  }

  @Route({
    method: 'POST',
    path: 'auth/logout',
    group: 'auth',
    roles: EVERY_ROLE,
    summary: 'End the current session and clear its cookie',
    audit: { target: 'users', self: true },
    response: LoggedOutDto,
    beforePasswordChange: true,
  })
  async logout(@CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.auth.logout(principal);
    reply.clearCookie(SESSION_COOKIE, { path: this.config.basePath || '/' });
    return { ok: true };
  }
}

const userView = (principal: Principal) => ({
  id: principal.userId,
  username: principal.username,
  role: principal.role,
});
