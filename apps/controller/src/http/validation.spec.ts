import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Length, ValidateNested } from 'class-validator';
import { ApiError } from './api-error.js';
import { StrictValidationPipe } from './validation.js';
import { readFailure } from './field-failures.js';

class Item {
  @IsString()
  @Length(1, 10)
  name!: string;

  @IsInt()
  count!: number;
}

class Order {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];
}

async function refusalOf(body: unknown): Promise<ApiError> {
  try {
    await new StrictValidationPipe().transform(body, { type: 'body', metatype: Order });
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a validation failure');
}

async function fieldOf(body: unknown): Promise<{ field: string; message: string }> {
  const refusal = await refusalOf(body);
  return { field: refusal.field, message: refusal.message };
}

describe('validation failures name their field as a path', () => {
  const ok = { name: 'a', count: 1 };

  test('nested array element field', async () => {
    expect((await fieldOf({ items: [ok, ok, { name: '', count: 1 }] })).field).toBe('items.2.name');
  });

  test('nested wrong type reports the type, not the length', async () => {
    expect(await fieldOf({ items: [{ name: 5, count: 1 }] })).toEqual({
      field: 'items.0.name',
      message: '"name" of entry 1 of "items" must be text.',
    });
  });

  test('unknown nested field', async () => {
    expect(await fieldOf({ items: [{ ...ok, colour: 'red' }] })).toEqual({
      field: 'items.0.colour',
      message: '"colour" of entry 1 of "items" is not a field this request takes.',
    });
  });

  test('every failing field is listed, each with a code, its numbers and a sentence', async () => {
    const refusal = await refusalOf({ items: [{ name: '', count: 1.5 }, ok, { name: 'x'.repeat(11) }] });
    expect(refusal.fieldErrors()).toEqual([
      {
        field: 'items.0.name',
        code: 'tooShort',
        params: { min: 1 },
        message: '"name" of entry 1 of "items" cannot be empty.',
      },
      { field: 'items.0.count', code: 'wholeNumber', message: '"count" of entry 1 of "items" must be a whole number.' },
      {
        field: 'items.2.name',
        code: 'tooLong',
        params: { max: 10 },
        message: '"name" of entry 3 of "items" can be at most 10 characters long.',
      },
      { field: 'items.2.count', code: 'required', message: '"count" of entry 3 of "items" is required.' },
    ]);
    expect(refusal.field).toBe('items.0.name');
    expect(refusal.message).toBe('"name" of entry 1 of "items" cannot be empty.');
  });

  test('valid input passes through as the DTO class', async () => {
    const order = await new StrictValidationPipe().transform({ items: [ok] }, { type: 'body', metatype: Order });
    expect(order).toBeInstanceOf(Order);
  });
});

class PageQuery {
  @Type(() => Number)
  @IsInt()
  perPage!: number;
}

describe('query DTOs that passed are reused', () => {
  const query = { type: 'query' as const, metatype: PageQuery };

  test('the same query answers an equal but distinct instance each time', async () => {
    const pipe = new StrictValidationPipe();
    const first = await pipe.transform({ perPage: '50' }, query);
    const second = await pipe.transform({ perPage: '50' }, query);
    expect(first).toBeInstanceOf(PageQuery);
    expect(second).toBeInstanceOf(PageQuery);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  test('a failing query fails every time, with the same answer', async () => {
    const pipe = new StrictValidationPipe();
    await pipe.transform({ perPage: '50' }, query);
    for (const bad of [{ perPage: 'x' }, { perPage: 'x' }, { perPage: '50', extra: '1' }]) {
      await expect(pipe.transform(bad, query)).rejects.toBeInstanceOf(ApiError);
    }
  });
});

describe('a rule given its own sentence', () => {
  test('a numbered code without its numbers is reported as invalid, with the sentence', () => {
    // ArrayMinSize(1, { message }): the sentence has no number to read back as {min}.
    expect(readFailure('interfaceIds', 'arrayMinSize', 'interfaceIds must name at least one interface')).toEqual({
      field: 'interfaceIds',
      code: 'invalid',
      message: '"interfaceIds" must name at least one interface.',
    });
    // Its default text still gives the code with its numbers.
    expect(readFailure('interfaceIds', 'arrayMinSize', 'interfaceIds must contain at least 1 elements')).toMatchObject({
      code: 'tooFew',
      params: { min: 1 },
    });
  });
});
