import { IsIn, IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';

/** `?force=true` on deletions that would otherwise refuse; anything but true/false is a 400. */
export class ForceQueryDto {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true to delete together with what depends on it' })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'force must be true or false' })
  force?: 'true' | 'false';
}

export const isForced = (query: ForceQueryDto): boolean => query.force === 'true';
