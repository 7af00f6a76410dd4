import { IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';

const NAME_RULE = /^[^\u0000-\u001f]*$/; // length is checked separately, with its own message

export class CreateTokenDto {
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name!: string;
}

export class UpdateTokenDto {
  @IsOptional()
  @IsString()
  @Length(1, 64)
  @Matches(NAME_RULE, { message: 'name must not contain control characters' })
  name?: string;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
