import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApiErrorBody } from '#libs/contracts/api-error.js';

/** The one error answer of every route, from the global exception filter. */
@ApiSchema({ name: 'Error' })
export class ApiErrorDto implements ApiErrorBody {
  @ApiProperty({ description: 'What went wrong, for people' })
  error!: string;

  @ApiProperty({ description: 'The offending input as a path such as `items.2.name`, or "" when no field is at fault' })
  field!: string;
}
