import { Inject, Injectable, Logger } from '@nestjs/common';
import { WARREN_VERSION } from '#libs/version/warren-version.js';
import { BackupStore, type BackupFile } from '../backups/backup-store.js';
import { ENFORCEMENT_RUN } from '../clients/time-transitions.service.js';
import { ONLINE_WINDOW_MS } from '../common/online.js';
import type { QueueBackendKind } from '../queue/queue-backend.js';
import { PANEL_RUNTIME, type PanelRuntime } from '../runtime.js';
import { SystemService, type SystemSnapshot } from '../system/system.service.js';
import { inventoryFrom, type InventoryCounts } from './inventory.js';
import { InventoryRepository, type RecordedRun } from './inventory.repository.js';
import { nodeStates, type DatabaseBackend, type NodeStates } from './panel-state.js';

export interface EnforcementRun {
  at: Date;
  expired: number;
  renewed: number;
  revived: number;
  nodes: number;
}

export interface Overview {
  generatedAt: Date;
  telemetry: SystemSnapshot;
  panel: {
    version: string;
    startedAt: Date;
    uptimeSeconds: number;
    database: DatabaseBackend;
    queue: QueueBackendKind;
    /** Whether agents of remote nodes can be enrolled: not on the PostgreSQL queue (no REDIS_URL). */
    remoteNodes: boolean;
    nodes: NodeStates;
    lastEnforcement: EnforcementRun | null;
    lastBackup: BackupFile | null;
  };
  inventory: InventoryCounts & { nodes: number; outbounds: number | null };
}

/** How long one listing of the backup directory answers for (see lastBackup). */
export const BACKUP_LISTING_MS = 5000;

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function enforcementRun(run: RecordedRun | null): EnforcementRun | null {
  if (!run) return null;
  const { expired, renewed, revived, nodes } = run.result;
  return {
    at: run.ranAt,
    expired: count(expired),
    renewed: count(renewed),
    revived: count(revived),
    nodes: count(nodes),
  };
}

/**
 * GET /api/overview/full: telemetry, panel state and inventory in one call (docs/overview.md).
 * Nothing here scans a table that grows with clients: the inventory comes from the counters the
 * database keeps (one statement), the telemetry from SystemService's snapshot (the nodes, a
 * handful of rows), the last backup from the backup directory's listing.
 */
@Injectable()
export class OverviewService {
  private readonly logger = new Logger('overview');
  private readonly backups: BackupStore;
  private backupListing?: { at: number; latest: Promise<BackupFile | null> };
  private readonly startedAtMs = Date.now() - process.uptime() * 1000;

  constructor(
    @Inject(PANEL_RUNTIME) private readonly runtime: PanelRuntime,
    private readonly system: SystemService,
    private readonly inventory: InventoryRepository,
  ) {
    this.backups = new BackupStore(runtime.config.backupDir);
  }

  async full(): Promise<Overview> {
    const now = Date.now();
    const [telemetry, reading, lastBackup] = await Promise.all([
      this.system.snapshot(),
      this.inventory.read(now - ONLINE_WINDOW_MS, ENFORCEMENT_RUN),
      this.lastBackup(),
    ]);
    return {
      generatedAt: new Date(now),
      telemetry,
      panel: {
        version: WARREN_VERSION,
        startedAt: new Date(this.startedAtMs),
        uptimeSeconds: Math.round(process.uptime() * 10) / 10,
        database: this.runtime.config.databaseUrl ? 'external' : 'embedded',
        queue: this.runtime.queues.kind,
        // issueEnrolment refuses remote nodes on the PostgreSQL store (it cannot give a host its own jobs only).
        remoteNodes: this.runtime.queues.kind === 'redis',
        nodes: nodeStates(telemetry.nodes),
        lastEnforcement: enforcementRun(reading.run),
        lastBackup,
      },
      inventory: {
        ...inventoryFrom(reading.counters, ONLINE_WINDOW_MS),
        nodes: telemetry.nodes.length,
        outbounds: null,
      },
    };
  }

  /**
   * The newest backup, listed at most every BACKUP_LISTING_MS and shared by the requests meanwhile.
   * Listing the directory (a readdir and a stat and checksum read per archive) cost more of the
   * panel's time per overview than everything else but the framework (profiled, docs/overview.md),
   * and a backup is made once a day: showing it up to 5 s late costs nothing.
   */
  private lastBackup(): Promise<BackupFile | null> {
    const now = Date.now();
    if (!this.backupListing || now - this.backupListing.at >= BACKUP_LISTING_MS) {
      this.backupListing = { at: now, latest: this.listBackups() };
    }
    return this.backupListing.latest;
  }

  /** An unreadable backup directory is the backups page's problem: the overview shows none. */
  private async listBackups(): Promise<BackupFile | null> {
    try {
      return await this.backups.latest();
    } catch (error) {
      this.logger.warn(`the backup directory cannot be read: ${(error as Error).message}`);
      return null;
    }
  }
}
