// Types of leftovers.js (plain JS: test/global-teardown.js loads it without TypeScript).
export declare const TEST_RUN: string;
export declare function testQueuePrefix(kind?: string): string;
export declare function testDatabaseName(): string;
export declare function testNamespaceName(prefix?: string): string;
export declare function alive(pid: number): boolean;
export declare function dropRedisPrefix(
  redisUrl: string,
  prefix: string,
  options?: { keys?: boolean },
): Promise<{ keys: number; users: number }>;
export declare function leftoversOf(
  run: string,
  options: { databaseUrl: string; redisUrl: string; remove?: boolean },
): Promise<string[]>;
