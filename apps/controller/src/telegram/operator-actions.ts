import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuditRecorder } from '../audit/audit-recorder.js';
import { auditedRoute, type AuditedRoute } from '../audit/audited-route.js';
import { scopeOf } from '../auth/operator-scope.js';
import type { Principal } from '../auth/principal.js';
import { ClientsController } from '../clients/clients.controller.js';
import { ClientsService } from '../clients/clients.service.js';
import type { UpdateClientDto } from '../clients/dto/client.dto.js';
import { ROUTE_SPEC, type RouteSpec } from '../http/route.decorator.js';
import type { Operator } from './telegram.repository.js';

/** The route-table entry of a ClientsController handler: the bot's change is recorded as that route's. */
function routeOf(handler: (...args: never[]) => unknown): AuditedRoute {
  const spec = Reflect.getMetadata(ROUTE_SPEC, handler) as RouteSpec | undefined;
  const route = spec && auditedRoute(spec);
  if (!route) throw new Error('the clients route the Telegram bot records its changes as is not audited');
  return route;
}

/** Where a change came from: the chat and the update, for the audit entry's user agent and request id. */
export interface ChatOrigin {
  chatId: number;
  updateId: number;
}

/**
 * The changes an operator makes from a chat. Each goes through ClientsService with the same
 * OperatorScope the HTTP route builds (a reseller reaches only their own clients, their ceilings
 * apply) and is recorded by the same AuditRecorder as the route it mirrors (`clients.update`,
 * `clients.reset`): same action, route, old → new values and outcome, `via: telegram`.
 */
@Injectable()
export class OperatorActions {
  private readonly updateRoute = routeOf(ClientsController.prototype.update);
  private readonly resetRoute = routeOf(ClientsController.prototype.reset);

  constructor(
    private readonly clients: ClientsService,
    private readonly recorder: AuditRecorder,
  ) {}

  update(operator: Operator, origin: ChatOrigin, id: string, body: UpdateClientDto) {
    return this.recorded(this.updateRoute, 'PATCH', operator, origin, id, body, () =>
      this.clients.update(id, body, scopeOf({ userId: operator.id, role: operator.role })),
    );
  }

  reset(operator: Operator, origin: ChatOrigin, id: string) {
    return this.recorded(this.resetRoute, 'POST', operator, origin, id, undefined, () =>
      this.clients.reset(id, scopeOf({ userId: operator.id, role: operator.role })),
    );
  }

  private async recorded<T>(
    route: AuditedRoute,
    method: string,
    operator: Operator,
    origin: ChatOrigin,
    id: string,
    body: object | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    // The recorder reads what it records from the request: this is the chat's request in that shape.
    const principal = {
      userId: operator.id,
      username: operator.username,
      role: operator.role,
      via: 'telegram',
      credentialId: null,
      mustChangePassword: false,
    } as unknown as Principal;
    const request = {
      method,
      params: { id },
      body,
      principal,
      ip: undefined,
      headers: { 'user-agent': `Telegram chat ${origin.chatId}` },
      id: `telegram-${origin.updateId}`,
    } as unknown as FastifyRequest & { principal?: Principal };
    const record = await this.recorder.open(route, request);
    try {
      const result = await record.run(work);
      await record.succeeded(result, route.status);
      return result;
    } catch (error) {
      await record.failed(error);
      throw error;
    }
  }
}
