import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { pinOfPem, publicKeyPinOfPem } from '#libs/contracts/certificate-pin.js';
import { createLogger, NestPinoLogger } from '#libs/logging/index.js';
import { AppModule } from './app.module.js';
import { ensureOwner, type OwnerCreated } from './auth/owner-bootstrap.js';
import type { WarrenConfig } from './config/config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './database/embedded-postgres.js';
import { withAdvisoryLock } from './database/advisory-lock.js';
import { openDatabase } from './database/orm.js';
import { createOpenApiDocument } from './docs/openapi.js';
import { DocsService } from './docs/docs.service.js';
import { PreparedPool } from './database/prepared-pool.js';
import { installRequestLayer, requestLayerOptions, serverOptions } from './http/request-layer.js';
import { installRequestLog, requestId } from './http/request-log.js';
import { PanelMetrics } from './metrics/panel-metrics.js';
import { loadTls } from './http/tls.js';
import { DeliveryService } from './nodes/delivery/delivery.service.js';
import { startLocalAgent } from './nodes/local-agent.js';
import { AgentCredentialsService } from './nodes/enrolment/agent-credentials.service.js';
import { ensureLocalNode } from './nodes/local-node.js';
import { NodesRepository } from './nodes/nodes.repository.js';
import { openQueueBackend, type QueueBackend } from './queue/queue-backend.js';
import { defaultWebRoot, registerWebApp, WEB_APP_ROUTE } from './web/web-app.js';
import { registerPublicLinks } from './subscriptions/public-links.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ServedRoute {
  method: string;
  url: string;
}

export interface Panel {
  app: NestFastifyApplication;
  /** Where the panel listens, e.g. https://127.0.0.1:8443 (no base path). */
  origin: string;
  owner?: OwnerCreated;
  /** Every API route the HTTP router serves, as registered (for the route-table test). */
  servedRoutes: ServedRoute[];
  /** The web panel's routes (static files and index.html under the base path), kept apart from the API's. */
  webRoutes: ServedRoute[];
  /** Whether a built web panel (dist/web) is served. */
  webApp: boolean;
  close(): Promise<void>;
}

/** Starts the whole controller: database (embedded or given), migrations, queue store, owner, HTTP. */
export async function startPanel(config: WarrenConfig): Promise<Panel> {
  // One pino logger for the process (JSON lines, or pretty on a terminal); Nest's Logger writes to it.
  const log = createLogger({
    name: 'warren',
    level: config.logLevel,
    ...(config.logFormat ? { pretty: config.logFormat === 'pretty' } : {}),
  });
  const nestLogger = new NestPinoLogger(log);
  Logger.overrideLogger(nestLogger);
  const logger = new Logger('warren');
  const metrics = new PanelMetrics();
  const cleanups: (() => Promise<unknown>)[] = [async () => metrics.stop()];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded: EmbeddedDatabase = await startEmbeddedPostgres(config.dataDir, (m) => logger.log(m));
      cleanups.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const orm: MikroORM = await openDatabase(databaseUrl);
    cleanups.push(() => orm.close(true));
    // What a first start creates (the queue store's schema, the owner, the local node), created
    // once when several controllers start together on one database.
    const { queues, owner, localNode } = await withAdvisoryLock(databaseUrl, 'warren.first-start', async () => {
      const queues: QueueBackend = await openQueueBackend({
        redisUrl: config.redisUrl,
        databaseUrl,
        prefix: config.queuePrefix,
        onJobDone: (queue, outcome) => metrics.jobs.inc({ queue, outcome }),
      });
      cleanups.push(() => queues.close());
      const owner = await ensureOwner(orm, config.admin);
      // Unmanaged (WARREN_LOCAL_AGENT=off) and deleted, it is not made again: only on a fresh database.
      const localNode = await ensureLocalNode(new NodesRepository(orm, config), config.localAgent || Boolean(owner));
      return { queues, owner, localNode };
    });
    const prepared = new PreparedPool(databaseUrl);
    cleanups.push(() => prepared.close());
    const tls = await loadTls(config);

    const adapter = new FastifyAdapter({
      bodyLimit: BODY_LIMIT_BYTES,
      trustProxy: config.trustedProxies.length ? config.trustedProxies : false,
      ...requestLayerOptions,
      genReqId: requestId,
      ...(tls ? { https: { cert: tls.cert, key: tls.key, ...serverOptions } } : { http: serverOptions }),
    } as ConstructorParameters<typeof FastifyAdapter>[0]);
    const fastify = adapter.getInstance();
    const servedRoutes: ServedRoute[] = [];
    const webRoutes: ServedRoute[] = [];
    fastify.addHook('onRoute', (route) => {
      const list = (route.config as Record<string, unknown> | undefined)?.[WEB_APP_ROUTE] ? webRoutes : servedRoutes;
      for (const method of [route.method].flat()) list.push({ method: String(method), url: route.url });
    });
    // First: every request, refused or not, gets its id before anything else can answer it.
    installRequestLog(fastify, { logger: log, metrics, basePath: config.basePath });
    installRequestLayer(fastify, BODY_LIMIT_BYTES);
    await fastify.register(fastifyCookie as never);
    const webApp = await registerWebApp(fastify, config.basePath, config.webRoot ?? defaultWebRoot());
    if (!webApp) logger.log('no web panel build in dist/web (npm run build): serving the API only');

    const app = await NestFactory.create<NestFastifyApplication>(
      AppModule.register({
        config,
        orm,
        databaseUrl,
        queues,
        prepared,
        metrics,
        selfSignedTls: tls?.selfSigned ?? false,
        ...(tls?.selfSigned ? { certificatePin: pinOfPem(tls.cert), publicKeyPin: publicKeyPinOfPem(tls.cert) } : {}),
      }),
      adapter,
      { logger: nestLogger, abortOnError: false, bodyParser: false },
    );
    app.setGlobalPrefix(`${config.basePath}/api`.replace(/^\//, ''));
    registerPublicLinks(fastify, config.basePath, app.get(SubscriptionsService));
    app.get(DocsService).publishOpenApi(await createOpenApiDocument(app));
    app.enableShutdownHooks();
    cleanups.push(() => app.close());
    await app.listen(config.port, config.host);
    const address = fastify.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const origin = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
    if (config.localAgent && localNode) {
      const startLocal = async (localNodeId: string) =>
        startLocalAgent({
          config,
          credentials: app.get(AgentCredentialsService),
          localNodeId,
          panelUrl: `${origin}${config.basePath}`,
          caFile: tls?.selfSigned ? tls.certFile : undefined,
          databaseUrl,
        });
      let localAgent = await startLocal(localNode.id);
      cleanups.push(() => localAgent.stop());
      // A restore replaced the node rows and the local agent's credential: it starts again for
      // the local node as restored (the backup's, or a new one when the backup had none).
      app.get(DeliveryService).whenRestored(async () => {
        await localAgent.stop();
        localAgent = await startLocal((await ensureLocalNode(new NodesRepository(orm, config), true))!.id);
      });
    }
    return {
      app,
      origin,
      owner,
      servedRoutes,
      webRoutes,
      webApp,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
