import { IsIn, IsOptional } from 'class-validator';

/** `?force=true` on deletions that would otherwise refuse; anything but true/false is a 400. */
export class ForceQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'force must be true or false' })
  force?: 'true' | 'false';
}

export const isForced = (query: ForceQueryDto): boolean => query.force === 'true';
