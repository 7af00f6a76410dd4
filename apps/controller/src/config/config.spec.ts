import { ConfigError, loadConfig } from './config.js';

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  test('defaults: embedded database, PostgreSQL queue, HTTPS on 8443, no base path', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.tls.enabled).toBe(true);
    expect(config.port).toBe(8443);
    expect(config.basePath).toBe('');
    expect(config.dataDir).toMatch(/\/data$/);
  });

  test('log format: unset (pretty on a terminal, JSON otherwise), or json / pretty in any case', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ WARREN_LOG_FORMAT: 'JSON' }).logFormat).toBe('json');
    expect(loadConfig({ WARREN_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
  });

  test('base path is normalised to a leading slash and no trailing slash', () => {
    expect(loadConfig({ WARREN_BASE_PATH: 'x7k2/' }).basePath).toBe('/x7k2');
    expect(loadConfig({ WARREN_BASE_PATH: '/a/b' }).basePath).toBe('/a/b');
    expect(loadConfig({ WARREN_BASE_PATH: '/' }).basePath).toBe('');
  });

  test('WARREN_TLS=off serves plain HTTP on 8080', () => {
    const config = loadConfig({ WARREN_TLS: 'off' });
    expect(config.tls.enabled).toBe(false);
    expect(config.port).toBe(8080);
  });

  test.each([
    [{ WARREN_PORT: 'abc' }, 'WARREN_PORT'],
    [{ WARREN_PORT: '70000' }, 'WARREN_PORT'],
    [{ WARREN_TLS: 'maybe' }, 'WARREN_TLS'],
    [{ WARREN_TLS_CERT: '/nonexistent/cert.pem', WARREN_TLS_KEY: '/nonexistent/key.pem' }, 'WARREN_TLS_CERT'],
    [{ WARREN_TLS_CERT: '/etc/hostname' }, 'WARREN_TLS_KEY'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ WARREN_BASE_PATH: '/a b' }, 'WARREN_BASE_PATH'],
    [{ WARREN_TRUSTED_PROXIES: '10.0.0.1,banana' }, 'WARREN_TRUSTED_PROXIES'],
    [{ WARREN_TRUSTED_PROXIES: '10.0.0.0/33' }, 'WARREN_TRUSTED_PROXIES'],
    [{ WARREN_ADMIN_PASSWORD: 'short' }, 'WARREN_ADMIN_PASSWORD'],
    [{ WARREN_ADMIN_USERNAME: 'has space' }, 'WARREN_ADMIN_USERNAME'],
    [{ WARREN_LOG_LEVEL: 'chatty' }, 'WARREN_LOG_LEVEL'],
    [{ WARREN_LOG_FORMAT: 'xml' }, 'WARREN_LOG_FORMAT'],
    [{ WARREN_PUBLIC_URL: 'ftp://panel.example' }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_PUBLIC_URL: 'https://panel$(id).example' }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_PUBLIC_URL: "https://panel';id;'.example" }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_PUBLIC_URL: 'https://panel.example/x7k2' }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_PUBLIC_URL: 'https://user:pw@panel.example' }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_PUBLIC_URL: 'https://panel.example/?a=1' }, 'WARREN_PUBLIC_URL'],
    [{ WARREN_DNS_SERVERS: '127.0.0.1,dns.example' }, 'WARREN_DNS_SERVERS'],
  ])('%j is refused naming %s', (env, variable) => {
    const error = failure(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}:`)).toBe(true);
  });

  test('WARREN_DNS_SERVERS: ip or ip:port, comma-separated; unset, the system resolver', () => {
    expect(loadConfig({}).dnsServers).toBeUndefined();
    expect(loadConfig({ WARREN_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,9.9.9.9' }).dnsServers).toEqual([
      '127.0.0.1:5353',
      '[::1]:53',
      '9.9.9.9',
    ]);
  });

  test('WARREN_PUBLIC_URL is kept as scheme://host[:port]; unset, each request says where it reached', () => {
    expect(loadConfig({ WARREN_PUBLIC_URL: 'https://Panel.Example.net:9443/' }).publicUrl).toBe(
      'https://panel.example.net:9443',
    );
    expect(loadConfig({ WARREN_PUBLIC_URL: 'http://[2001:db8::1]' }).publicUrl).toBe('http://[2001:db8::1]');
    expect(loadConfig({}).publicUrl).toBeUndefined();
  });

  test('WARREN_LOCAL_AGENT: on by default, off, or external (the credential handed over, the agent run by a unit of its own; needs Redis)', () => {
    expect(loadConfig({})).toMatchObject({ localAgent: true, localAgentExternal: false });
    expect(loadConfig({ WARREN_LOCAL_AGENT: 'off' })).toMatchObject({ localAgent: false, localAgentExternal: false });
    expect(loadConfig({ WARREN_LOCAL_AGENT: 'external', REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({
      localAgent: true,
      localAgentExternal: true,
    });
    expect(failure({ WARREN_LOCAL_AGENT: 'external' }).message).toContain('needs REDIS_URL');
    expect(failure({ WARREN_LOCAL_AGENT: 'sometimes' }).message).toContain('must be "on", "off" or "external"');
  });

  test('intervals of recurring work: production defaults, shortened by their variables, whole ms from 100', () => {
    expect(loadConfig({}).intervals).toEqual({
      timeTransitionsMs: 30_000,
      historyMaintenanceMs: 60_000,
      deliverySweepMs: 5_000,
      agentPingMs: 15_000,
    });
    expect(
      loadConfig({
        WARREN_TIME_TRANSITIONS_MS: '2000',
        WARREN_HISTORY_MAINTENANCE_MS: '3000',
        WARREN_DELIVERY_SWEEP_MS: '500',
        WARREN_AGENT_PING_MS: '1000',
      }).intervals,
    ).toEqual({ timeTransitionsMs: 2000, historyMaintenanceMs: 3000, deliverySweepMs: 500, agentPingMs: 1000 });
    expect(failure({ WARREN_AGENT_PING_MS: '50' }).message).toContain('between 100 and');
    expect(failure({ WARREN_DELIVERY_SWEEP_MS: '1.5' }).message).toContain('whole number');
  });

  test('a bad value never echoes a secret', () => {
    const error = failure({ DATABASE_URL: 'mysql://user:hunter2@db' });
    expect(error.message).not.toContain('hunter2');
  });
});
