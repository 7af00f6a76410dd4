import { IsString, MaxLength, MinLength } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';

export class EnrolDto {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'The one-time enrolment secret (`wne_…`)' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  secret!: string;
}
