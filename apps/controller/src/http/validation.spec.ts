import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Length, ValidateNested } from 'class-validator';
import { ApiError } from './api-error.js';
import { StrictValidationPipe } from './validation.js';

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

async function fieldOf(body: unknown): Promise<{ field: string; message: string }> {
  try {
    await new StrictValidationPipe().transform(body, { type: 'body', metatype: Order });
  } catch (error) {
    if (error instanceof ApiError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('validation failures name their field as a path', () => {
  const ok = { name: 'a', count: 1 };

  test('nested array element field', async () => {
    expect((await fieldOf({ items: [ok, ok, { name: '', count: 1 }] })).field).toBe('items.2.name');
  });

  test('nested wrong type reports the type, not the length', async () => {
    expect(await fieldOf({ items: [{ name: 5, count: 1 }] })).toEqual({
      field: 'items.0.name',
      message: 'name must be a string',
    });
  });

  test('unknown nested field', async () => {
    expect(await fieldOf({ items: [{ ...ok, colour: 'red' }] })).toEqual({
      field: 'items.0.colour',
      message: 'unknown field "items.0.colour"',
    });
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
