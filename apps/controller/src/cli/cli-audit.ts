import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { AuditChange } from '#libs/contracts/audit.js';
import { CLI_ERROR_CODES } from '../audit/audit-error-code.js';
import { openEntry, settleEntry } from '../audit/audit.repository.js';
import { PreparedPool } from '../database/prepared-pool.js';
import { CommandFailed } from './usage.js';

/** What a command changes, for its audit entry (COMMANDS' `audit` in main.ts). */
export interface CliAudit {
  /** The kind of target, as the API's paths name it: tokens, backups, users. */
  target: string;
  /** The target's id or name, when the command names one: its argument, or an option. */
  targetId?: (args: string[], options: Record<string, unknown>) => string | undefined;
  /** The fields it sets: options given (secrets as `secret: true`). */
  changes?: (options: Record<string, unknown>) => AuditChange[];
}

interface Action {
  command: string;
  audit: CliAudit;
  args: string[];
  options: Record<string, unknown>;
  entryId?: string;
  statements?: PreparedPool;
  /** Closings of the databases the command opened, run after its entry is settled. */
  closings: (() => Promise<void>)[];
}

let current: Action | undefined;

/** The host account running the command: the CLI's actor. */
function hostAccount(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * Runs a command that changes the panel with its audit entry (docs/audit.md, "The command
 * line"): opened as `pending` as soon as the command has its database (openPanelDatabase calls
 * cliDatabaseOpened), before it changes anything, and settled when it ends.
 */
export async function runAudited(
  command: string,
  audit: CliAudit,
  args: string[],
  options: Record<string, unknown>,
  work: () => Promise<void>,
): Promise<void> {
  const action: Action = { command, audit, args, options, closings: [] };
  current = action;
  let outcome: 'success' | 'refused' | 'failed' = 'success';
  let error: string | null = null;
  try {
    await work();
  } catch (thrown) {
    outcome = thrown instanceof CommandFailed ? 'refused' : 'failed';
    error = (thrown instanceof Error ? thrown.message : String(thrown)).slice(0, 512);
    throw thrown;
  } finally {
    current = undefined;
    try {
      if (action.entryId && action.statements)
        await settleEntry(action.statements, action.entryId, {
          outcome,
          status: outcome === 'success' ? 0 : 1,
          error,
          errorCode: outcome === 'success' ? null : CLI_ERROR_CODES[outcome],
          targetId: null,
          targetName: null,
          changes: audit.changes?.(options) ?? [],
          actorId: null,
          actorRole: null,
        });
    } finally {
      await action.statements?.close().catch(() => undefined);
      for (const close of action.closings.reverse()) await close();
    }
  }
}

/**
 * Called by openPanelDatabase once the database is open (and current): writes the running
 * command's entry and returns the close to hand out instead of `close`, which waits until the
 * entry is settled. Outside an audited command, `close` itself.
 */
export async function cliDatabaseOpened(url: string, close: () => Promise<void>): Promise<() => Promise<void>> {
  const action = current;
  if (!action) return close;
  action.closings.push(close);
  if (!action.entryId) {
    const statements = new PreparedPool(url, 1);
    const id = randomUUID();
    await openEntry(statements, {
      id,
      actorId: null,
      actorName: hostAccount(),
      actorRole: null,
      via: 'cli',
      credentialId: null,
      action: `cli.${action.command.replaceAll(' ', '.')}`,
      method: 'CLI',
      route: `warren ${action.command}`,
      targetType: action.audit.target,
      targetId: action.audit.targetId?.(action.args, action.options)?.slice(0, 128) ?? null,
      targetName: null,
      changes: action.audit.changes?.(action.options) ?? [],
      address: null,
      userAgent: null,
      requestId: null,
    }).catch(async (error: unknown) => {
      await statements.close().catch(() => undefined);
      throw error;
    });
    action.entryId = id;
    action.statements = statements;
  }
  return async () => undefined;
}
