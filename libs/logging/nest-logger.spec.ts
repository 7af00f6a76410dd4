import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { NestPinoLogger } from './nest-logger.js';

describe('NestPinoLogger', () => {
  test("Nest's per-module and per-route start-up lines are debug; everything else logs as it is", () => {
    const lines: { level: number; msg: string; context?: string }[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const logger = new NestPinoLogger(createLogger({ name: 'test', level: 'log', destination }));
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('ClientsController {/api/clients}:', 'RoutesResolver');
    logger.log('Mapped {/api/clients, GET} route', 'RouterExplorer');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('delivered revision 7', 'delivery');
    expect(lines.map((line) => line.context)).toEqual(['NestApplication', 'delivery']);
  });
});
