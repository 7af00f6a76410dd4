import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../app.module.js';
import { loadConfig } from '../config/config.js';
import type { PanelRuntime } from '../runtime.js';
import { createOpenApiDocument } from './openapi.js';

/**
 * The OpenAPI document without a database, queue store or port: Nest's preview mode builds the
 * module graph without instantiating providers, which is all the swagger scan reads; the
 * stand-ins for the database and queues are never called.
 */
export async function offlineOpenApiDocument(): Promise<OpenAPIObject> {
  const runtime: PanelRuntime = {
    config: loadConfig({ WARREN_TLS: 'off', WARREN_LOCAL_AGENT: 'off', WARREN_LOG_LEVEL: 'error' }),
    orm: {} as PanelRuntime['orm'],
    databaseUrl: '',
    queues: {} as PanelRuntime['queues'],
    prepared: {} as PanelRuntime['prepared'],
    metrics: {} as PanelRuntime['metrics'],
    selfSignedTls: false,
  };
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(runtime), new FastifyAdapter(), {
    logger: false,
    preview: true,
    abortOnError: false,
  });
  try {
    app.setGlobalPrefix('api');
    return await createOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
