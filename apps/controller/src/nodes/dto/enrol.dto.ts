import { IsString, MaxLength, MinLength } from 'class-validator';

export class EnrolDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  secret!: string;
}
