import { IsIn, IsOptional, IsString, IsUUID, Length, ValidateIf } from 'class-validator';

/** The formats an import reads (docs/import.md). */
export const IMPORT_FORMATS = ['warren', 'warren-csv', 'wg-easy-json', 'wg-easy-sqlite', 'w-ui'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

export class ExportClientsQuery {
  /** json (default: Warren's export, which imports back) or csv (one line per account, for spreadsheets). */
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';

  /** Only the clients whose groups include this one. */
  @Optional()
  @IsString()
  @Length(1, 64)
  group?: string;
}

export class ImportClientsQuery {
  /** The interface the clients are imported onto: their addresses must lie in its subnet. */
  @IsUUID('all', { message: 'interfaceId must be an interface id (a UUID)' })
  interfaceId!: string;

  /** The file's format; default: recognised from the content. */
  @Optional()
  @IsIn(IMPORT_FORMATS)
  format?: ImportFormat;

  /** true: only say what would be created, updated and refused; write nothing. */
  @Optional()
  @IsIn(['true', 'false'], { message: 'dryRun must be true or false' })
  dryRun?: 'true' | 'false';

  /** Which of the file's interfaces to take when its clients have accounts on several (Warren: its name; W-UI: its id). */
  @Optional()
  @IsString()
  @Length(1, 64)
  sourceInterface?: string;
}
