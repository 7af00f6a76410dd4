import { ApiProperty } from '@nestjs/swagger';

/**
 * Never answered as JSON: the routes serve a file. The route table needs a body type for its
 * JSON alternative; this one says what the file is.
 */
export class AgentPackageDto {
  @ApiProperty({ description: 'What the file is' })
  description!: string;
}
