import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshInterface } from '../support/fixtures.js';
import { restartablePanel } from '../support/panel-process-api.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Faults of the controller's own (issue 27, item 6), on a panel process the test kills with
 * SIGKILL and starts again, its backups on a small tmpfs of the test's own: a backup interrupted
 * by kill -9 mid-packing, and a backup that fills the disk. What must hold: the run ends
 * (finished, or failed with a reason), no half-written archive is listed or left in the
 * directory, and the panel keeps working. Needs root (mount).
 */
const CLIENTS = 60_000;
const TMPFS_BYTES = 96 * 1024 * 1024;
const backupDir = mkdtempSync(join(tmpdir(), 'warren-faults-backups-'));
let mounted = false;

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('controller-faults.spec needs root (a tmpfs for the backup directory)');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES},mode=0700`, 'tmpfs', backupDir]);
  mounted = true;
});
const session = restartablePanel({ name: 'controller-faults', env: () => ({ WARREN_BACKUP_DIR: backupDir }) });
afterAll(() => {
  // Lazy: the panel stops in its own afterAll, in whichever order the hooks run.
  if (mounted) execFileSync('umount', ['-l', backupDir]);
  rmSync(backupDir, { recursive: true, force: true });
});
const call: ReturnType<typeof session>['call'] = (...args) => session().call(...args);
const query: ReturnType<typeof session>['query'] = (...args) => session().query(...args);

/** Enough rows that a backup takes long enough to be caught mid-way, seeded in SQL. */
beforeAll(async () => {
  await query(
    `insert into clients (id, name, note, groups, quota_bytes, used_bytes, up_bytes, down_bytes, expires_at, device_limit,
                          rate_bits_per_sec, reset_cycle, start_on_first_use, duration_seconds, status, sub_id, owner_id, created_at, updated_at)
     select gen_random_uuid(), 'faults-' || n, repeat(md5(n::text), 4), '{}', 0, 0, 0, 0, timestamptz '2030-01-01T00:00:00Z', 1, 0, 'none', false, 0,
            'active', md5(random()::text || n),
            (select id from users where role = 'owner' order by created_at limit 1), now(), now()
       from generate_series(1, $1) n`,
    [CLIENTS],
  );
}, 120_000);

/** Entries of the backup directory that are not finished archives and their companions. */
function leftovers(): string[] {
  return readdirSync(backupDir).filter(
    (name) => name !== 'filler' && !/^backup-\d{8}-\d{6}\.tar\.gz(\.sha256|\.scheduled)?$/.test(name),
  );
}

/** Every archive listed is whole: gzip's CRC and the tar index read to the end. */
async function listedArchivesAreWhole(): Promise<string[]> {
  const listed = (await call('GET', 'backups')).body.backups as { name: string; size: number }[];
  for (const backup of listed) {
    const path = join(backupDir, backup.name);
    expect(statSync(path).size).toBe(backup.size);
    execFileSync('tar', ['-tzf', path], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  return listed.map((backup) => backup.name);
}

async function runToEnd(
  id: string,
  timeoutMs = 150_000,
): Promise<{ state: string; error: string | null; name: string | null }> {
  return waitFor(
    `backup job ${id} to end`,
    async () => {
      const { status, body } = await call('GET', `backups/jobs/${id}`);
      return status === 200 && (body.state === 'completed' || body.state === 'failed') ? body : undefined;
    },
    timeoutMs,
    500,
  );
}

test('a controller killed (SIGKILL) while it packs a backup: after the restart the run ends, no half archive is listed or left', async () => {
  const before = await listedArchivesAreWhole();
  // Not awaited: the request dies with the process.
  const request = call('POST', 'backups').catch(() => undefined);
  const running = await waitFor(
    'the backup to be packing its archive',
    async () => {
      const part = readdirSync(backupDir).find((name) => /^\.archive-.*\.part$/.test(name));
      return part && statSync(join(backupDir, part), { throwIfNoEntry: false })?.size ? part : undefined;
    },
    60_000,
    5,
  );
  const { body } = await call('GET', 'backups');
  expect(body.running).toMatchObject({ kind: 'backup', state: 'active' });
  const id = body.running.id as string;
  await session().kill();
  await request;
  // What the dead run left: its staging directory and its half-packed archive, under no backup name.
  expect(readdirSync(backupDir)).toContain(running);
  expect(readdirSync(backupDir).filter((name) => /^backup-.*\.tar\.gz$/.test(name))).toEqual(before);

  await session().restart();
  const job = await runToEnd(id);
  // Finished (run again after the stall) or failed with its reason: never left running.
  if (job.state === 'failed') expect(job.error).toMatch(/\w{4,}/);
  else expect(job.name).toMatch(/^backup-/);
  expect((await call('GET', 'backups')).body.running).toBeNull();
  const after = await listedArchivesAreWhole();
  expect(after.filter((name) => !before.includes(name))).toEqual(job.state === 'completed' ? [job.name] : []);

  // The next run sweeps what the dead one left, whatever its age.
  const next = await call('POST', 'backups');
  expect(next.status).toBe(201);
  expect(leftovers()).toEqual([]);
  expect(await listedArchivesAreWhole()).toContain(next.body.name);
  process.stdout.write(
    `controller-faults: killed mid-packing, job ${id} ${job.state}${job.error ? `: ${job.error}` : ''}\n`,
  );
}, 300_000);

test('a backup that fills its disk fails saying so; nothing of it is kept or listed and the panel carries on', async () => {
  const before = await listedArchivesAreWhole();
  // Leave 256 KiB: the dump of the seeded rows needs far more.
  const free = Number(execFileSync('df', ['--output=avail', '-B1', backupDir]).toString().split('\n')[1]);
  writeFileSync(join(backupDir, 'filler'), Buffer.alloc(Math.max(0, free - 256 * 1024)));
  try {
    const started = await call('POST', 'backups');
    const said = /no space left on the disk of the backup directory .* \(ENOSPC\): the backup was not made/;
    // Within the request: 507 with the reason; past it, the job fails with the same reason.
    if (started.status === 202) expect(await runToEnd(started.body.id)).toMatchObject({ state: 'failed', error: said });
    else expect(started).toMatchObject({ status: 507, body: { error: said, field: '' } });
    const { body } = await call('GET', 'backups');
    expect(body.running).toBeNull();
    expect(leftovers()).toEqual([]);
    expect(await listedArchivesAreWhole()).toEqual(before);
    // The panel works on: reads and writes.
    expect((await call('GET', 'clients?perPage=1')).status).toBe(200);
    expect((await call('POST', 'interfaces', freshInterface())).status).toBe(201);
  } finally {
    rmSync(join(backupDir, 'filler'), { force: true });
  }
  // With the space back, a backup is made.
  const again = await call('POST', 'backups');
  expect(again.status).toBe(201);
  expect(await listedArchivesAreWhole()).toEqual([again.body.name, ...before]);
}, 300_000);
