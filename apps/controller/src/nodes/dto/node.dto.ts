import { IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsHostAddress, OptionalNotNull } from '../../http/validators.js';

const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

export class CreateNodeDto {
  @IsString()
  @Length(1, 64)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' })
  name!: string;

  @IsString()
  @MaxLength(255)
  @IsHostAddress()
  address!: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(512)
  note?: string;
}

export class UpdateNodeDto {
  @OptionalNotNull()
  @IsString()
  @Length(1, 64)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'name must not contain control characters' })
  name?: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(255)
  @IsHostAddress()
  address?: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(512)
  note?: string;
}
