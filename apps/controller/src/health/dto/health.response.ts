import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CheckDto {
  @ApiProperty() ok!: boolean;
  @ApiProperty({ minimum: 0 }) latencyMs!: number;
  @ApiPropertyOptional({ enum: ['timed out', 'unreachable'], description: 'Only when not ok' }) error?: string;
}

export class QueueCheckDto extends CheckDto {
  @ApiProperty({ enum: ['redis', 'postgres'] }) backend!: 'redis' | 'postgres';
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ type: CheckDto }) database!: CheckDto;
  @ApiProperty({ type: QueueCheckDto }) queue!: QueueCheckDto;
}
