import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller.js';
import { AuthNotices } from './auth-notices.js';
import { AuthGuard } from './auth.guard.js';
import { AuthService } from './auth.service.js';
import { CredentialsRepository } from './credentials.repository.js';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { UsersRepository } from './users.repository.js';
import { TotpClock } from './totp/totp-clock.js';
import { TotpController } from './totp/totp.controller.js';
import { TotpRepository } from './totp/totp.repository.js';
import { TotpService } from './totp/totp.service.js';

/**
 * Sign-in, sessions and the guard every route passes (registered here as the app-wide guard).
 * Nothing is exported: other domains use only auth's plain pieces (the principal decorator,
 * the User entity).
 */
@Module({
  controllers: [AuthController, TotpController],
  providers: [
    AuthService,
    LoginThrottleService,
    LoginThrottleRepository,
    UsersRepository,
    CredentialsRepository,
    TotpService,
    TotpRepository,
    TotpClock,
    AuthNotices,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
})
export class AuthModule {}
