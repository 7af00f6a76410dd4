import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CheckDto {
  @ApiProperty() ok!: boolean;
  @ApiProperty({ minimum: 0 }) latencyMs!: number;
  @ApiPropertyOptional({ enum: ['timed out', 'unreachable'], description: 'Only when not ok' }) error?: string;
}

export class QueueCheckDto extends CheckDto {
  @ApiProperty({ enum: ['redis', 'postgres'] }) backend!: 'redis' | 'postgres';
}

export class MigrationsCheckDto {
  @ApiProperty() ok!: boolean;
  @ApiProperty({ minimum: -1, description: 'Committed migrations the database has not run (-1: could not be read)' })
  pending!: number;
}

export class LivenessDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({ minimum: 0 }) uptimeSeconds!: number;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'not ready'] }) status!: 'ready' | 'not ready';
  @ApiProperty({ type: CheckDto }) database!: CheckDto;
  @ApiProperty({ type: QueueCheckDto }) queue!: QueueCheckDto;
  @ApiProperty({ type: MigrationsCheckDto }) migrations!: MigrationsCheckDto;
}
