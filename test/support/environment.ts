/**
 * The real services tests talk to. .ci/run exports DATABASE_URL and REDIS_URL; on a developer
 * machine the local defaults below are the same services.
 */
export const SERVER_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
