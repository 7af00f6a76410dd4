import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { OptionalNotNull } from '../../http/validators.js';
import { SETTING_BOUNDS as b, SHARING_ACTIONS, type SharingAction } from '../panel-settings.js';

/** PATCH /api/settings: every field optional; those given are validated and written together. */
export class UpdateSettingsDto {
  @ApiPropertyOptional({
    description: 'Hours between scheduled backups; 0 turns the schedule off',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(b.backupIntervalHours.min)
  @Max(b.backupIntervalHours.max)
  backupIntervalHours?: number;

  @ApiPropertyOptional({
    description:
      'How many of the newest scheduled backups retention keeps; archives made by hand or uploaded are never pruned',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(b.backupKeep.min)
  @Max(b.backupKeep.max)
  backupKeep?: number;

  @ApiPropertyOptional({
    description: 'http(s) URL an http-mode probe fetches through a hop',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(b.probeUrlLength)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true },
    { message: 'probeUrl must be an http or https URL' },
  )
  probeUrl?: string;

  @OptionalNotNull()
  @IsInt()
  @Min(b.probeTimeoutMs.min)
  @Max(b.probeTimeoutMs.max)
  probeTimeoutMs?: number;

  @ApiPropertyOptional({
    description:
      'Allow hop addresses and probe targets on private addresses (loopback, RFC 1918, CGNAT, ULA, link-local, multicast, reserved, the host’s own); owner only',
  })
  @OptionalNotNull()
  @IsBoolean()
  allowPrivateTargets?: boolean;

  @ApiPropertyOptional({
    description:
      'Seconds between periodic checks of every hop (an http probe from its node, jittered, checked every 5 s); 0 turns them off',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(b.hopCheckIntervalSeconds.min)
  @Max(b.hopCheckIntervalSeconds.max)
  hopCheckIntervalSeconds?: number;

  @ApiPropertyOptional({
    description: 'Days the audit log keeps an entry; older entries are deleted by the periodic maintenance; owner only',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(b.auditRetentionDays.min)
  @Max(b.auditRetentionDays.max)
  auditRetentionDays?: number;

  @ApiPropertyOptional({ description: 'Minutes GET /api/sharing looks back at where devices’ endpoints moved' })
  @OptionalNotNull()
  @IsInt()
  @Min(b.sharingWindowMinutes.min)
  @Max(b.sharingWindowMinutes.max)
  sharingWindowMinutes?: number;

  @ApiPropertyOptional({
    description: 'Distinct endpoint addresses of one device within the window that count as sharing',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(b.sharingMaxAddresses.min)
  @Max(b.sharingMaxAddresses.max)
  sharingMaxAddresses?: number;

  @ApiPropertyOptional({
    enum: SHARING_ACTIONS,
    description: 'What a device found sharing does: flag (listed by GET /api/sharing) or disable (its client too)',
  })
  @OptionalNotNull()
  @IsIn(SHARING_ACTIONS)
  sharingAction?: SharingAction;
}
