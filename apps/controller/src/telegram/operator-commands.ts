import { Injectable, Logger } from '@nestjs/common';
import type { Api } from 'grammy';
import { CLIENT_MANAGERS } from '#libs/contracts/user-roles.js';
import { scopeOf } from '../auth/operator-scope.js';
import type { ClientView } from '../clients/client-view.js';
import { ClientsService } from '../clients/clients.service.js';
import type { ListClientsQuery } from '../clients/dto/client.dto.js';
import { ApiError } from '../http/api-error.js';
import { factsOf } from './customer-replies.js';
import { OperatorActions, type ChatOrigin } from './operator-actions.js';
import { bytes, clientSummary, say } from './telegram-text.js';
import type { TelegramLanguage } from './telegram-settings.js';
import type { Operator } from './telegram.repository.js';

const MAX_DAYS = 3650;
const DAY_MS = 86_400_000;

/** One message from an operator's chat: `/command rest of the line`. */
export interface OperatorMessage extends ChatOrigin {
  command: string;
  args: string;
  language: TelegramLanguage;
}

type Found = { client: ClientView } | { reply: string };

/**
 * An operator's commands (docs/telegram.md): look clients up (every role), and extend, reset,
 * disable or enable them (the roles that manage clients). Every read and change passes the
 * operator's own scope, so a reseller's chat finds and touches only that reseller's clients.
 */
@Injectable()
export class OperatorCommands {
  private readonly logger = new Logger('telegram');

  constructor(
    private readonly clients: ClientsService,
    private readonly actions: OperatorActions,
  ) {}

  async handle(api: Api, operator: Operator, message: OperatorMessage): Promise<void> {
    await api.sendMessage(message.chatId, await this.answer(operator, message));
  }

  private async answer(operator: Operator, message: OperatorMessage): Promise<string> {
    const { language } = message;
    const changes = ['extend', 'reset', 'disable', 'enable'];
    if (changes.includes(message.command) && !CLIENT_MANAGERS.includes(operator.role))
      return say(language, 'readOnly', { role: operator.role });
    try {
      switch (message.command) {
        case 'find':
          return await this.find(operator, message.args, language);
        case 'client': {
          const found = await this.resolve(operator, message.args, language);
          if ('reply' in found) return found.reply;
          const c = found.client;
          return `${c.name}\n${clientSummary(factsOf(c), language)}\n↑ ${bytes(c.upBytes, language)} ↓ ${bytes(c.downBytes, language)}`;
        }
        case 'extend':
          return await this.extend(operator, message);
        case 'reset':
        case 'disable':
        case 'enable':
          return await this.change(operator, message);
        default:
          return say(language, 'operatorHelp');
      }
    } catch (error) {
      // A refusal (404 outside the scope, a reseller's ceiling, 409) is told; anything else is logged.
      if (error instanceof ApiError && error.status < 500) return say(language, 'refused', { error: error.message });
      this.logger.error(`operator command /${message.command} failed: ${(error as Error).message}`);
      return say(language, 'failed');
    }
  }

  private async find(operator: Operator, text: string, language: TelegramLanguage): Promise<string> {
    if (!text) return say(language, 'operatorHelp');
    const page = await this.clients.list(
      { search: text, perPage: 20 } as ListClientsQuery,
      scopeOf(operatorUser(operator)),
    );
    if (page.items.length === 0) return say(language, 'foundNone', { text });
    const names = page.items.map((c) => `${c.name} (${c.status})`).join(', ');
    return say(language, 'found', { text, names }) + (page.total > page.items.length ? ` … ${page.total}` : '');
  }

  private async extend(operator: Operator, message: OperatorMessage): Promise<string> {
    const { language } = message;
    const match = /^(.*\S)\s+(\d{1,4})$/.exec(message.args);
    const days = match ? Number(match[2]) : 0;
    if (!match || days < 1 || days > MAX_DAYS) return say(language, 'badDays');
    const found = await this.resolve(operator, match[1], language);
    if ('reply' in found) return found.reply;
    // From the later of now and the current expiry: an expired client gets `days` from today.
    const from = Math.max(Date.now(), found.client.expiresAt?.getTime() ?? Date.now());
    const expiresAt = new Date(from + days * DAY_MS).toISOString();
    const changed = await this.actions.update(operator, message, found.client.id, { expiresAt });
    return say(language, 'extended', {
      name: changed.name,
      date: changed.expiresAt ? changed.expiresAt.toISOString().slice(0, 10) : '-',
    });
  }

  private async change(operator: Operator, message: OperatorMessage): Promise<string> {
    const { language } = message;
    const found = await this.resolve(operator, message.args, language);
    if ('reply' in found) return found.reply;
    const { id, name } = found.client;
    if (message.command === 'reset') {
      await this.actions.reset(operator, message, id);
      return say(language, 'reset', { name });
    }
    const enabled = message.command === 'enable';
    await this.actions.update(operator, message, id, { enabled });
    return say(language, enabled ? 'enabled' : 'disabled', { name });
  }

  /** The one client in the operator's scope named exactly `name` (case aside). */
  private async resolve(operator: Operator, name: string, language: TelegramLanguage): Promise<Found> {
    if (!name) return { reply: say(language, 'operatorHelp') };
    const scope = scopeOf(operatorUser(operator));
    const page = await this.clients.list({ search: name, perPage: 200 } as ListClientsQuery, scope);
    const exact = page.items.filter((c) => c.name.toLowerCase() === name.toLowerCase());
    if (exact.length === 0) return { reply: say(language, 'notFound', { name }) };
    if (exact.length > 1)
      return { reply: say(language, 'ambiguous', { name, names: exact.map((c) => c.name).join(', ') }) };
    return { client: await this.clients.get(exact[0].id, scope) };
  }
}

const operatorUser = (operator: Operator) => ({ userId: operator.id, role: operator.role });
