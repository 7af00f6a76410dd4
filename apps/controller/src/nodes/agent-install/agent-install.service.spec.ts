import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import type { WarrenConfig } from '../../config/config.js';
import { AgentInstallService } from './agent-install.service.js';

/** A prebuilt package (WARREN_AGENT_PACKAGE) is read again only when its time or size changed. */
describe('a prebuilt agent package', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'warren-agent-pkg-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A package of `version` at `file`: what packageVersion reads, warren-agent/package.json. */
  const pack = async (file: string, version: string) => {
    const source = join(dir, `src-${version}`);
    mkdirSync(join(source, 'warren-agent'), { recursive: true });
    writeFileSync(join(source, 'warren-agent', 'package.json'), JSON.stringify({ name: 'warren-agent', version }));
    await tar.c({ gzip: true, cwd: source, file, portable: true, noMtime: true }, ['warren-agent']);
  };

  test('repeated downloads reuse the first read; a new time or size is read afresh', async () => {
    const file = join(dir, 'agent.tgz');
    await pack(file, '1.2.3');
    // A whole second, so setting it again gives the very same time (a Date drops sub-milliseconds).
    const mtime = new Date('2026-01-01T00:00:00Z');
    utimesSync(file, mtime, mtime);
    const service = new AgentInstallService({ agentPackageFile: file } as WarrenConfig);
    const first = await service.described();
    expect(first.version).toBe('1.2.3');

    // Same size and time, other bytes (not a package at all): not read again, so the same answer.
    writeFileSync(file, Buffer.alloc(statSync(file).size));
    utimesSync(file, mtime, mtime);
    expect(await service.described()).toBe(first);

    // The time moves: read again, and these bytes are no package (503).
    utimesSync(file, mtime, new Date(mtime.getTime() + 5_000));
    await expect(service.described()).rejects.toMatchObject({ status: 503 });

    // A new package replaces it: its version and checksum.
    await pack(file, '2.0.0');
    const second = await service.described();
    expect(second.version).toBe('2.0.0');
    expect(second.sha256).not.toBe(first.sha256);
    expect(await service.package()).toBe(second.archive);
  });

  test('a file that cannot be read is a 503, tried again on the next download', async () => {
    const file = join(dir, 'missing.tgz');
    const service = new AgentInstallService({ agentPackageFile: file } as WarrenConfig);
    await expect(service.described()).rejects.toMatchObject({ status: 503 });
    await pack(file, '3.0.0');
    expect((await service.described()).version).toBe('3.0.0');
  });
});
