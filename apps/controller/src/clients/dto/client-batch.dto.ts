import { PickType } from '@nestjs/swagger';
import { IsInt, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { CreateClientDto } from './client.dto.js';

/** Bounds of a batch; docs/clients.md lists the same. */
export const BATCH_LIMITS = {
  count: 10_000,
  prefixLength: 100,
  start: 1_000_000_000,
  digits: 9,
} as const;

const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/**
 * Many clients from one description: names are the prefix and a number, every other field is
 * the same for each (as POST /api/clients takes it).
 */
export class BatchCreateClientsDto extends PickType(CreateClientDto, [
  'note',
  'groups',
  'quotaBytes',
  'expiresAt',
  'deviceLimit',
  'interfaceIds',
  'startOnFirstUse',
  'durationDays',
  'durationHours',
  'resetCycle',
  'enabled',
  'rateBitsPerSec',
] as const) {
  /** Each name is this followed by its number, e.g. "shop-" makes shop-1, shop-2, ... (no leading space, no control characters). */
  @IsString()
  @Length(1, BATCH_LIMITS.prefixLength)
  @Matches(/^(?!\s)[^\u0000-\u001f\u007f]*$/, {
    message: 'namePrefix must not start with a space nor contain control characters',
  })
  namePrefix!: string;

  /** How many clients to create. */
  @IsInt()
  @Min(1)
  @Max(BATCH_LIMITS.count)
  count!: number;

  /** The first number (default 1). */
  @Optional()
  @IsInt()
  @Min(0)
  @Max(BATCH_LIMITS.start)
  start?: number;

  /** Numbers are padded with zeros to this many digits (default 0: not padded), e.g. 3 makes shop-001. */
  @Optional()
  @IsInt()
  @Min(0)
  @Max(BATCH_LIMITS.digits)
  digits?: number;

  /** Devices each client starts with, named device-1, device-2, ... (default 1; within deviceLimit). */
  @Optional()
  @IsInt()
  @Min(1)
  @Max(50)
  devicesEach?: number;
}
