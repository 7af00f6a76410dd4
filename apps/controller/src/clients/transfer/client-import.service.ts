import { Inject, Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { publicKeyFromPrivate } from '#libs/wireguard/keys.js';
import type { FieldError } from '#libs/contracts/api-error.js';
import type { OperatorScope } from '../../auth/operator-scope.js';
import { badRequest } from '../../http/api-error.js';
import { checkNewClients, checkTerms, hideForbiddenInterfaces } from '../../resellers/ceilings.js';
import { ResellerLimitsRepository, type ResellerAccount } from '../../resellers/reseller-limits.repository.js';
import { bumpRevisions } from '../../revisions/revisions.js';
import type { LockedInterface } from '../accounts.repository.js';
import { nextStatus } from '../client-status.js';
import { ClientTotals } from '../client-totals.js';
import { ClientsRepository } from '../clients.repository.js';
import { ProvisioningService, type ClientToCreate } from '../provisioning.service.js';
import { generateSubId } from '../sub-id.js';
import { readImportFile } from './import-file.js';
import { bareIp, planImport, type PlannedRow } from './import-plan.js';
import { UnreadableFile, type ImportFile, type ImportFormat } from './import-rows.js';
import { TransferRepository } from './transfer.repository.js';

export interface ImportOptions {
  interfaceId: string;
  format?: ImportFormat;
  sourceInterface?: string;
  dryRun: boolean;
}

export interface ImportAnswer {
  format: ImportFormat;
  dryRun: boolean;
  applied: boolean;
  interfaceId: string;
  summary: { rows: number; created: number; updated: number; refused: number };
  rows: {
    row: number;
    name: string;
    action: PlannedRow['action'];
    devices: number;
    addresses: string[];
    errors: FieldError[];
  }[];
  warnings: string[];
}

/** Row-level refusals listed in a refused apply: enough to fix a file, not a whole 5,000-row echo. */
const ERRORS_LISTED = 200;

/**
 * Imports clients from a file of Warren or another panel onto one interface, keeping their keys,
 * preshared keys and addresses (docs/import.md). A dry run answers the plan; an apply writes all
 * rows in one transaction, re-planned under the interface's lock, or nothing when any row is refused.
 */
@Injectable()
export class ClientImportService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly totals: ClientTotals,
    private readonly clients: ClientsRepository,
    private readonly transfer: TransferRepository,
    private readonly provisioning: ProvisioningService,
    private readonly resellers: ResellerLimitsRepository,
  ) {}

  async import(bytes: Buffer, options: ImportOptions, scope: OperatorScope): Promise<ImportAnswer> {
    let file: ImportFile;
    try {
      file = readImportFile(bytes, options.format, options.sourceInterface);
    } catch (error) {
      if (error instanceof UnreadableFile) throw badRequest(error.message, 'file');
      throw error;
    }
    if (options.dryRun) {
      const em = this.orm.em.fork();
      const [iface] = await this.provisioning.lockInterfaces(em, [options.interfaceId], 'interfaceId');
      const account = scope.ceilings ? await this.resellers.get(em, scope.userId) : undefined;
      // Before the plan reads the file against it: an interface not theirs answers as a made-up one.
      if (account) hideForbiddenInterfaces(account, [iface], 'interfaceId');
      const planned = await this.plan(em, file, iface, scope);
      if (account) await this.checkCeilings(em, account, scope, planned, iface);
      return this.answer(file, iface, planned, options, false);
    }
    const now = new Date();
    const answer = await this.orm.em.fork().transactional(async (em) => {
      // A reseller's row first, as their creates take it: one at a time, each counting the others'.
      const account = scope.ceilings ? await this.resellers.lock(em, scope.userId) : undefined;
      const [iface] = await this.provisioning.lockInterfaces(em, [options.interfaceId], 'interfaceId');
      if (account) hideForbiddenInterfaces(account, [iface], 'interfaceId');
      const planned = await this.plan(em, file, iface, scope);
      const refused = planned.filter((row) => row.action === 'refuse');
      if (refused.length > 0) {
        const errors = refused.flatMap((row) => row.errors).slice(0, ERRORS_LISTED);
        const first = refused[0];
        throw badRequest(
          `${refused.length} of ${planned.length} rows are refused, so nothing was imported; row ${first.row.row}` +
            `${first.row.name ? ` ("${first.row.name}")` : ''}: ${first.errors[0].message}`,
          errors[0].field,
          errors,
        );
      }
      if (account) await this.checkCeilings(em, account, scope, planned, iface);
      await this.apply(em, planned, iface, scope, now);
      return this.answer(file, iface, planned, options, true);
    });
    this.totals.changed();
    return answer;
  }

  /**
   * A reseller's import counts its new clients against maxClients, all at once as a batch, and each
   * row's quota and expiry (what it sets, for an update) and the interface against their ceilings.
   */
  private async checkCeilings(
    em: EntityManager,
    account: ResellerAccount,
    scope: OperatorScope,
    planned: readonly PlannedRow[],
    iface: LockedInterface,
  ): Promise<void> {
    const now = new Date();
    const creations = planned.filter((row) => row.action === 'create').length;
    const owned = await this.resellers.clientCount(em, scope.userId);
    checkNewClients(account, owned, creations, { interfaces: [iface] }, now);
    for (const { row, existing, action } of planned) {
      if (action === 'refuse') continue;
      const expiresAt = row.expiresAt !== undefined ? row.expiresAt : existing ? undefined : null;
      const deviceLimit = row.deviceLimit ?? (existing ? undefined : Math.max(1, row.devices.length));
      checkTerms(account, { quotaBytes: row.quotaBytes ?? (existing ? undefined : 0), expiresAt, deviceLimit }, now);
    }
  }

  private async plan(
    em: EntityManager,
    file: ImportFile,
    iface: LockedInterface,
    scope: OperatorScope,
  ): Promise<PlannedRow[]> {
    const devices = file.rows.flatMap((row) => row.devices);
    const ips = devices.flatMap((device) => bareIp(device.ip) ?? []);
    const keys = devices.flatMap((device) => device.publicKey ?? []);
    const [existing, holders] = await Promise.all([
      this.transfer.clientsNamed(em, file.rows.map((row) => row.name).filter(Boolean), scope),
      this.transfer.holders(em, iface.id, ips, keys),
    ]);
    return planImport(file.rows, { subnet: iface.subnet, existing, holders });
  }

  private async apply(
    em: EntityManager,
    planned: readonly PlannedRow[],
    iface: LockedInterface,
    actor: OperatorScope,
    now: Date,
  ): Promise<void> {
    const creations: ClientToCreate[] = planned
      .filter((row) => row.action === 'create')
      .map(({ row }) => {
        const quotaBytes = row.quotaBytes ?? 0;
        const usedBytes = row.usedBytes ?? 0;
        const expiresAt = row.expiresAt ?? null;
        return {
          id: randomUUID(),
          name: row.name,
          note: row.note ?? '',
          groups: row.groups ?? [],
          telegramId: row.telegramId ?? null,
          quotaBytes,
          usedBytes,
          expiresAt,
          deviceLimit: row.deviceLimit ?? Math.max(1, row.devices.length),
          rateBitsPerSec: 0,
          resetCycle: 'none',
          startOnFirstUse: false,
          durationSeconds: 0,
          status: nextStatus(null, { quotaBytes, usedBytes, expiresAt }, now, row.enabled),
          subId: generateSubId(),
          now,
          devices: row.devices.map((device) => ({
            name: device.name,
            kept:
              device.privateKey === undefined
                ? undefined
                : new Map([
                    [
                      iface.id,
                      {
                        ip: bareIp(device.ip)!,
                        privateKey: device.privateKey,
                        publicKey: device.publicKey ?? publicKeyFromPrivate(device.privateKey),
                        // '' is no preshared key: delivery and profiles leave the line out.
                        presharedKey: device.presharedKey ?? '',
                      },
                    ],
                  ]),
          })),
        };
      });
    await this.provisioning.createClients(em, actor, creations, [iface], now);
    const updated: string[] = [];
    for (const { row, existing } of planned) {
      if (!existing) continue;
      const quotaBytes = row.quotaBytes ?? existing.quotaBytes;
      const expiresAt = row.expiresAt === undefined ? existing.expiresAt : row.expiresAt;
      const status = nextStatus(
        existing.status,
        { quotaBytes, usedBytes: existing.usedBytes, expiresAt },
        now,
        row.enabled,
      );
      await this.clients.update(
        em,
        existing.id,
        status,
        {
          note: row.note,
          groups: row.groups,
          telegramId: row.telegramId === null ? undefined : row.telegramId,
          quotaBytes: row.quotaBytes,
          expiresAt: row.expiresAt,
          deviceLimit: row.deviceLimit,
        },
        now,
      );
      updated.push(existing.id);
    }
    await bumpRevisions(em, [iface.nodeId, ...(await this.clients.nodesOf(em, updated))]);
  }

  private answer(
    file: ImportFile,
    iface: LockedInterface,
    planned: readonly PlannedRow[],
    options: ImportOptions,
    applied: boolean,
  ): ImportAnswer {
    const count = (action: PlannedRow['action']) => planned.filter((row) => row.action === action).length;
    const warnings: string[] = [];
    if (file.serverPublicKey && file.serverPublicKey !== iface.publicKey) {
      warnings.push(
        `profiles made by the old panel name its server key ${file.serverPublicKey}, and this interface's is ` +
          `${iface.publicKey}: give the interface the old server's private key (PUT /api/template, as the owner), ` +
          'its port and endpoint, or the customers must download their profiles again',
      );
    }
    const generated = planned.filter(
      (row) => row.action === 'create' && row.row.devices.some((d) => d.privateKey === undefined),
    );
    if (generated.length > 0)
      warnings.push(`${generated.length} rows carry no keys: they get new keys, and their customers new profiles`);
    const withoutPsk = planned.filter(
      (row) =>
        row.action === 'create' &&
        row.row.devices.some((d) => d.privateKey !== undefined && d.presharedKey === undefined),
    );
    if (withoutPsk.length > 0)
      warnings.push(
        `${withoutPsk.length} rows have peers without a preshared key: they are kept without one, as their profiles are`,
      );
    return {
      format: file.format,
      dryRun: options.dryRun,
      applied,
      interfaceId: iface.id,
      summary: { rows: planned.length, created: count('create'), updated: count('update'), refused: count('refuse') },
      rows: planned.map(({ row, action, errors }) => ({
        row: row.row,
        name: row.name,
        action,
        devices: row.devices.length,
        addresses: row.devices.flatMap((device) => bareIp(device.ip) ?? []),
        errors,
      })),
      warnings,
    };
  }
}
