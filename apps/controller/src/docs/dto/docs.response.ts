import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '#libs/contracts/user-roles.js';

export class DocsEndpointDto {
  @ApiProperty({ enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }) method!: string;
  @ApiProperty({ description: 'Full path as served, base path included', example: '/api/clients/{id}' }) path!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ description: 'Whether the route needs credentials' }) auth!: boolean;
  @ApiProperty({ enum: USER_ROLES, isArray: true, description: 'The roles that may call the route (empty when it is public)' })
  roles!: UserRole[];
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'An example JSON body, or null' }) example!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Query parameters with a description each' })
  query!: Record<string, string>;
  @ApiProperty({ description: 'A ready curl command for the address the panel was reached on' }) curl!: string;
}

export class DocsGroupDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: [DocsEndpointDto] }) endpoints!: DocsEndpointDto[];
}

export class DocsListingDto {
  @ApiProperty({ description: 'The panel address the request reached, base path included' }) baseUrl!: string;
  @ApiProperty() auth!: string;
  @ApiProperty({ type: [DocsGroupDto] }) groups!: DocsGroupDto[];
}

/** The document itself; its shape is OpenAPI 3.1's, not repeated here. */
export class OpenApiDocumentDto {
  @ApiProperty({ example: '3.1.0' }) openapi!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) info!: object;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } }) servers!: object[];
  @ApiProperty({ type: 'object', additionalProperties: true }) paths!: object;
  @ApiProperty({ type: 'object', additionalProperties: true }) components!: object;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } }) tags!: object[];
}
