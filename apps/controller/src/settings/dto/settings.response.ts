import { ApiProperty } from '@nestjs/swagger';
import { IntField } from '../../http/api-fields.js';
import { SHARING_ACTIONS, type SharingAction } from '../panel-settings.js';

export class SettingsDto {
  @IntField({ description: 'Hours between scheduled backups; 0 = no schedule' })
  backupIntervalHours!: number;

  @IntField({
    description:
      'How many of the newest scheduled backups retention keeps; archives made by hand or uploaded are never pruned',
  })
  backupKeep!: number;

  @ApiProperty({ description: 'What an http-mode probe fetches through a hop' })
  probeUrl!: string;

  @IntField()
  probeTimeoutMs!: number;

  @ApiProperty({
    description:
      'Hop addresses and probe targets may be private (loopback, RFC 1918, CGNAT, ULA, link-local, multicast, reserved, the host’s own)',
  })
  allowPrivateTargets!: boolean;

  @IntField({ description: 'Seconds between periodic checks of every hop; 0 = off' })
  hopCheckIntervalSeconds!: number;

  @IntField({ description: 'Days the audit log keeps an entry' })
  auditRetentionDays!: number;

  @IntField({ description: 'Minutes GET /api/sharing looks back' })
  sharingWindowMinutes!: number;

  @IntField({ description: 'Distinct endpoint addresses of one device within the window that count as sharing' })
  sharingMaxAddresses!: number;

  @ApiProperty({ enum: SHARING_ACTIONS, description: 'flag: listed only; disable: its client is disabled too' })
  sharingAction!: SharingAction;
}
