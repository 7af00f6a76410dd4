import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ApiErrorBody, FieldError } from '#libs/contracts/api-error.js';

@ApiSchema({ name: 'FieldError' })
export class FieldErrorDto implements FieldError {
  @ApiProperty({ description: 'The offending input as a path such as `items.2.name`' })
  field!: string;

  @ApiProperty({
    description:
      'What is wrong, stable across versions, for translating: required, unknown, text, wholeNumber, number, ' +
      'boolean, list, object, id, dateTime, oneOf, tooShort, tooLong, tooSmall, tooLarge, tooFew, tooMany, ' +
      'repeated, format, invalid, notFound, conflict, forbidden',
    example: 'tooShort',
  })
  code!: string;

  @ApiProperty({ description: 'The same as a sentence for people, in English', example: 'Name cannot be empty.' })
  message!: string;

  @ApiPropertyOptional({
    description: 'The numbers or values the code speaks of: min, max (numbers) or values (text)',
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'number' }, { type: 'string' }] },
    example: { min: 1 },
  })
  params?: Record<string, number | string>;
}

/** The one error answer of every route, from the global exception filter. */
@ApiSchema({ name: 'Error' })
export class ApiErrorDto implements ApiErrorBody {
  @ApiProperty({ description: 'What went wrong, for people (the first failing field when there are several)' })
  error!: string;

  @ApiProperty({ description: 'The offending input as a path such as `items.2.name`, or "" when no field is at fault' })
  field!: string;

  @ApiPropertyOptional({
    description: 'Every failing field, the first being `field`; absent when no field is at fault',
    type: [FieldErrorDto],
  })
  errors?: FieldErrorDto[];

  @ApiPropertyOptional({
    description:
      "A reseller's ceiling the request would exceed (maxClients, trafficPoolBytes, maxExpiryDays, maxQuotaBytes, interfaceIds, nodeIds)",
    example: 'maxQuotaBytes',
  })
  ceiling?: string;

  @ApiPropertyOptional({
    description: 'The room left under that ceiling: a count of clients, bytes or days, or the ids still allowed',
    oneOf: [{ type: 'integer' }, { type: 'array', items: { type: 'string', format: 'uuid' } }],
  })
  remaining?: number | string[];
}
