import { IsString, MaxLength, MinLength } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';

export class EnrolDto {
  @ApiProperty({ description: 'The one-time enrolment secret (`wne_…`)' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  secret!: string;
}
