import { Body, Controller, Param } from '@nestjs/common';
import { EVERY_ROLE } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { CreateTokenDto, UpdateTokenDto } from './dto/token.dto.js';
import { IssuedTokenDto, TokenDto } from './dto/token.response.js';
import { DeletedDto } from '../http/api-fields.js';
import { TokensService } from './tokens.service.js';

/** The tokens area of the panel's nodes section. */
@Controller()
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Route({
    method: 'GET',
    path: 'tokens',
    group: 'tokens',
    roles: EVERY_ROLE,
    summary: "List API tokens (secrets are never shown again): the owner sees every user's, others their own",
    response: [TokenDto],
  })
  list(@CurrentPrincipal() principal: Principal) {
    return this.tokens.list(principal);
  }

  @Route({
    method: 'POST',
    path: 'tokens',
    group: 'tokens',
    roles: EVERY_ROLE,
    summary:
      'Issue an API token, optionally narrower than its user (read-only, an expiry, route groups); the response is the only time its value is shown',
    example: {
      name: 'ci-deploy',
      readOnly: false,
      expiresAt: '2099-01-01T00:00:00Z',
      routeGroups: ['clients', 'devices'],
    },
    status: 201,
    response: IssuedTokenDto,
  })
  async issue(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenDto) {
    const issued = await this.tokens.issue(principal, body.name, body);
    return { ...issued, usage: 'Authorization: Bearer <token>' };
  }

  @Route({
    method: 'PATCH',
    path: 'tokens/:id',
    group: 'tokens',
    roles: EVERY_ROLE,
    summary:
      "Rename, disable or re-enable an API token (takes effect on the next request); only the owner reaches other users' tokens, and a request made with a token changes only tokens no wider than itself",
    example: { enabled: false },
    response: TokenDto,
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new IdPipe('token')) id: string,
    @Body() body: UpdateTokenDto,
  ) {
    return this.tokens.update(principal, id, body);
  }

  @Route({
    method: 'DELETE',
    path: 'tokens/:id',
    group: 'tokens',
    roles: EVERY_ROLE,
    summary:
      "Delete an API token for good; only the owner reaches other users' tokens, and a request made with a token deletes only tokens no wider than itself",
    response: DeletedDto,
  })
  remove(@CurrentPrincipal() principal: Principal, @Param('id', new IdPipe('token')) id: string) {
    return this.tokens.remove(principal, id);
  }
}
