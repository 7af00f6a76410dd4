import { IsString, Length } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';

export class LoginDto {
  @ApiProperty({ minLength: 1, maxLength: 64 })
  @IsString()
  @Length(1, 64)
  username!: string;

  @ApiProperty({ minLength: 1, maxLength: 1024, format: 'password' })
  @IsString()
  @Length(1, 1024)
  password!: string;
}
