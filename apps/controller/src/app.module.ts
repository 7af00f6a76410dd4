import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AuditInterceptor } from './audit/audit.interceptor.js';
import { AuditModule } from './audit/audit.module.js';
import { AuditReaders } from './audit-readers.js';
import { AuthModule } from './auth/auth.module.js';
import { BackupsModule } from './backups/backups.module.js';
import { ClientsModule } from './clients/clients.module.js';
import { DocsModule } from './docs/docs.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { HealthModule } from './health/health.module.js';
import { ErrorFilter } from './http/error.filter.js';
import { StrictValidationPipe } from './http/validation.js';
import { UndeclaredInputInterceptor } from './http/undeclared-input.js';
import { InterfacesModule } from './interfaces/interfaces.module.js';
import { TunnelsModule } from './tunnels/tunnels.module.js';
import { MonitoringModule } from './monitoring/monitoring.module.js';
import { NodesModule } from './nodes/nodes.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { MailModule } from './notifications/mail/mail.module.js';
import { WebhooksModule } from './notifications/webhooks/webhooks.module.js';
import { OverviewModule } from './overview/overview.module.js';
import { OutboundsModule } from './outbounds/outbounds.module.js';
import { BalancersModule } from './balancers/balancers.module.js';
import { RoutingModule } from './routing/routing.module.js';
import type { PanelRuntime } from './runtime.js';
import { RuntimeModule } from './runtime.module.js';
import { ServerModule } from './server/server.module.js';
import { SettingsModule } from './settings/settings.module.js';
import { SubscriptionsModule } from './subscriptions/subscriptions.module.js';
import { TelegramModule } from './telegram/telegram.module.js';
import { TemplateModule } from './template/template.module.js';
import { SystemModule } from './system/system.module.js';
import { TokensModule } from './tokens/tokens.module.js';
import { AdminsModule } from './admins/admins.module.js';

@Module({})
export class AppModule {
  static register(runtime: PanelRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.register(runtime),
        AuditModule,
        NotificationsModule,
        AuthModule,
        TokensModule,
        AdminsModule,
        HealthModule,
        InterfacesModule,
        TunnelsModule,
        ClientsModule,
        GroupsModule,
        SubscriptionsModule,
        SettingsModule,
        BackupsModule,
        TelegramModule,
        OutboundsModule,
        BalancersModule,
        RoutingModule,
        SystemModule,
        NodesModule,
        OverviewModule,
        MonitoringModule,
        TemplateModule,
        ServerModule,
        DocsModule,
        WebhooksModule,
        MailModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        // First: a request refused for its input (by the pipes or the next interceptor) is recorded too.
        { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
        { provide: APP_INTERCEPTOR, useClass: UndeclaredInputInterceptor },
        AuditReaders,
      ],
    };
  }
}
