import type { FieldError } from '#libs/contracts/api-error.js';
import type { ImportFormat } from '../dto/client-transfer.dto.js';

export type { ImportFormat };

/** One device of a row as the file has it: what is missing is generated or allocated. */
export interface ImportDevice {
  name: string;
  ip?: string;
  privateKey?: string;
  publicKey?: string;
  presharedKey?: string;
  /** How the file names this device's fields, e.g. `rows[3]` or `rows[3].devices[1]`. */
  at: string;
  /** The file's names of the fields, where they differ from these (wg-easy: `address`, `preSharedKey`). */
  names?: Partial<Record<'ip' | 'privateKey' | 'publicKey' | 'presharedKey', string>>;
}

/** One client of the file, read into Warren's words; its refusals so far (the reading's own). */
export interface ImportRow {
  /** 1-based, in the file's order. */
  row: number;
  name: string;
  note?: string;
  groups?: string[];
  telegramId?: number | null;
  quotaBytes?: number;
  usedBytes?: number;
  expiresAt?: Date | null;
  deviceLimit?: number;
  enabled: boolean;
  devices: ImportDevice[];
  errors: FieldError[];
}

/** What a file says besides its clients. */
export interface ImportFile {
  format: ImportFormat;
  rows: ImportRow[];
  /** The old server's public key, which profiles made by the old panel name. */
  serverPublicKey?: string;
}

/** A refusal of one field of one row. */
export const rowError = (field: string, message: string, code = 'invalid'): FieldError => ({ field, code, message });

/** The file itself cannot be read: a 400 naming `file`. */
export class UnreadableFile extends Error {}

/** A value as text when it is a string, else undefined. */
export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A date from the file, or null; undefined when it is not one (the caller refuses it). */
export function fileDate(value: unknown): Date | null | undefined {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(
    typeof value === 'string' && /^\d{4}-\d\d-\d\d \d/.test(value) ? `${value.replace(' ', 'T')}Z` : value,
  );
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
