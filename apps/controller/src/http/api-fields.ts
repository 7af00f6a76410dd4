import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';

// Shorthands for the field kinds every DTO repeats, so each declares its format the same way.

export const IdField = (options: ApiPropertyOptions = {}) =>
  ApiProperty({ type: String, format: 'uuid', ...options } as ApiPropertyOptions);

export const DateTimeField = (options: ApiPropertyOptions = {}) =>
  ApiProperty({ type: String, format: 'date-time', ...options } as ApiPropertyOptions);

export const IntField = (options: ApiPropertyOptions = {}) =>
  ApiProperty({ type: 'integer', ...options } as ApiPropertyOptions);

export const OptionalIntField = (options: ApiPropertyOptions = {}) =>
  ApiPropertyOptional({ type: 'integer', ...options } as ApiPropertyOptions);

/** Outcome of every DELETE: the id that is gone. */
export class DeletedDto {
  @IdField()
  id!: string;

  @ApiProperty({ type: Boolean, enum: [true] })
  deleted!: true;
}
