import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { toErrorResponse } from './error-response.js';
import { databaseUnreachable } from './database-unreachable.js';

/** What node-postgres and MikroORM throw when PostgreSQL is away, and what they throw when it refused a statement. */
function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe('databaseUnreachable', () => {
  it.each([
    ['refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['fast shutdown ends the session', pgError('terminating connection due to administrator command', '57P01')],
    ['shutting down or starting up', pgError('the database system is starting up', '57P03')],
    ['crash of another backend', pgError('terminating connection because of crash of another server process', '57P02')],
    ['connection exception class', pgError('connection failure', '08006')],
    ['socket closed under a query', pgError('Connection terminated unexpectedly')],
    ['pool connect timeout', pgError('timeout exceeded when trying to connect')],
    ['wrapped by MikroORM', new DriverException(pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))],
    ['as a cause', new Error('listing clients failed', { cause: pgError('x', '57P01') })],
    ['one of several addresses', new AggregateError([pgError('x', 'ECONNREFUSED')])],
  ])('%s: yes, and the API answers 503 naming the database', (_, error) => {
    expect(databaseUnreachable(error)).toBe(true);
    const answer = toErrorResponse(error);
    expect(answer).toMatchObject({ status: 503, unexpected: false, headers: { 'Retry-After': '5' } });
    expect(answer.body).toEqual({ error: expect.stringMatching(/^the database cannot be reached/), field: '' });
  });

  it.each([
    ['a statement error', pgError('syntax error at or near "x"', '42601')],
    ['a unique violation', new UniqueConstraintViolationException(pgError('duplicate key', '23505'))],
    // Class 08 but the server's answer to a malformed message (too many bind parameters): a defect.
    ['a protocol violation', pgError('bind message supplies 70000 parameters', '08P01')],
    ['a defect', new TypeError('cannot read properties of undefined')],
    ['nothing', undefined],
  ])('%s: no', (_, error) => {
    expect(databaseUnreachable(error)).toBe(false);
    expect(toErrorResponse(error).status).not.toBe(503);
  });
});
