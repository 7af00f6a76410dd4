import { IsString, Length } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';

export class LoginDto {
  @IsString()
  @Length(1, 64)
  username!: string;

  @ApiProperty({ format: 'password' })
  @IsString()
  @Length(1, 1024)
  password!: string;
}
