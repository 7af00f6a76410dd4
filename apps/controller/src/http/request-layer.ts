import { answerClientError, answerFrameworkError } from './framework-errors.js';
import { registerJsonBody, type PanelFastify } from './json-body.js';
import { refuseUnstorableUrlText } from './url-text.js';

/**
 * What every request passes before routing, guards and pipes: checks that hold for all routes,
 * present and future, because they are not per DTO. fastify options for the adapter; the Nest
 * application must be created with `bodyParser: false` so this body parser is the only one.
 */
export const requestLayerOptions = {
  frameworkErrors: answerFrameworkError,
  clientErrorHandler: answerClientError,
};

export function installRequestLayer(fastify: PanelFastify, bodyLimit: number): void {
  registerJsonBody(fastify, bodyLimit);
  fastify.addHook('onRequest', async (request) => refuseUnstorableUrlText(request));
}
