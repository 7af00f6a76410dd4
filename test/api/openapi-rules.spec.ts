import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { getMetadataStorage } from 'class-validator';
import type { OpenAPIObject } from '@nestjs/swagger';
import { offlineOpenApiDocument } from '../../apps/controller/src/docs/offline-document.js';

/**
 * The OpenAPI document and the validation may never disagree: for every property of every request
 * DTO (a class with class-validator rules), what the document states (required, nullable, type,
 * bounds, lengths, pattern, allowed values, format, array sizes) is exactly what the rules say,
 * and the document names exactly the properties the rules accept (the validation pipe refuses
 * any other). The expectations are read here from class-validator's metadata with their own
 * mapping, independent of how the panel builds its schema (docs/dto-metadata.ts).
 */

type Schema = Record<string, unknown>;
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
type Constructor = abstract new (...args: never[]) => unknown;

/** What one rule requires of the schema of its property (or of the items, with `each`). */
function expectedOf(rule: ValidationMetadata): Schema {
  const [first, second] = rule.constraints ?? [];
  switch (rule.name) {
    case 'isString':
      return { type: 'string' };
    case 'isInt':
      return { type: 'integer' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isArray':
      return { type: 'array' };
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'isLength':
      return second === undefined ? { minLength: first } : { minLength: first, maxLength: second };
    case 'minLength':
      return { minLength: first };
    case 'maxLength':
      return { maxLength: first };
    case 'matches':
      return { pattern: first instanceof RegExp ? first.source : first };
    case 'isIn':
      return { enum: first };
    case 'isUuid':
      return { format: 'uuid' };
    case 'isIso8601':
      return { format: 'date-time' };
    case 'isUrl':
      return { format: 'uri' };
    case 'arrayMinSize':
      return { minItems: first };
    case 'arrayMaxSize':
      return { maxItems: first };
    case 'arrayUnique':
      return { uniqueItems: true };
    default:
      return {};
  }
}

/** Rules that hold only for one type, so say it without isString or isNumber beside them. */
const IMPLIED_TYPES: Record<string, string> = {
  isLength: 'string',
  minLength: 'string',
  maxLength: 'string',
  matches: 'string',
  isUuid: 'string',
  isIso8601: 'string',
  isUrl: 'string',
  min: 'number',
  max: 'number',
  arrayMinSize: 'array',
  arrayMaxSize: 'array',
  arrayUnique: 'array',
};

/** The keywords compared; the rest (description, default, example, $ref) is prose or shape. */
const RULE_KEYWORDS = [
  'type',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
];

function ruleKeywords(schema: Schema): Schema {
  const picked: Schema = {};
  for (const key of RULE_KEYWORDS) {
    if (schema[key] === undefined) continue;
    // OpenAPI 3.1 says nullable as a "null" type (or a null member of enum); compared separately.
    if (key === 'type' && Array.isArray(schema.type)) picked.type = schema.type.filter((type) => type !== 'null')[0];
    else if (key === 'enum') picked.enum = (schema.enum as unknown[]).filter((value) => value !== null);
    else picked[key] = schema[key];
  }
  // format: password is a hint for forms (mask the input), not a rule.
  if (picked.format === 'password') delete picked.format;
  // A string enum says the type by its values; the rule list says it by isIn (and perhaps isString).
  if (picked.enum && picked.type === 'string') delete picked.type;
  return picked;
}

function isNullable(schema: Schema): boolean {
  return (
    schema.nullable === true ||
    (Array.isArray(schema.type) && schema.type.includes('null')) ||
    (Array.isArray(schema.enum) && schema.enum.includes(null)) ||
    (Array.isArray(schema.oneOf) && (schema.oneOf as Schema[]).some((option) => option.type === 'null'))
  );
}

interface DocumentedProperty {
  required: boolean;
  schema: Schema;
  /** A query parameter: a string in the URL, never null, so nullability does not apply. */
  inQuery?: boolean;
}

interface Comparison {
  property: string;
  required: boolean;
  nullable: boolean;
  rules: Schema;
  items?: Schema;
}

/** What the rules on one property say, in the form compared. */
function fromRules(property: string, rules: ValidationMetadata[], inQuery = false): Comparison {
  const conditional = rules.filter((rule) => rule.type === 'conditionalValidation');
  const own: Schema = {};
  const items: Schema = {};
  for (const rule of rules) Object.assign(rule.each ? items : own, expectedOf(rule));
  for (const rule of rules) {
    const implied = rule.name ? IMPLIED_TYPES[rule.name] : undefined;
    const schema = rule.each ? items : own;
    if (implied) schema.type ??= implied;
  }
  if (own.enum && own.type === 'string') delete own.type;
  if (items.enum && items.type === 'string') delete items.type;
  // A nested DTO (ValidateNested) is a $ref; its own properties are compared as a class of their own.
  return {
    property,
    required: conditional.length === 0,
    // IsOptional skips null as well as absence; the panel's own ValidateIf skips absence only.
    nullable: !inQuery && rules.some((rule) => rule.name === 'isOptional'),
    rules: own,
    ...(Object.keys(items).length ? { items } : {}),
  };
}

function fromDocument(property: string, documented: DocumentedProperty): Comparison {
  const items = documented.schema.items as Schema | undefined;
  const itemRules = items ? ruleKeywords(items) : {};
  return {
    property,
    required: documented.required,
    nullable: isNullable(documented.schema),
    rules: ruleKeywords(documented.schema),
    ...(Object.keys(itemRules).length ? { items: itemRules } : {}),
  };
}

const SOURCE = fileURLToPath(new URL('../../apps/controller/src/', import.meta.url));

function dtoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return dtoFiles(path);
    return entry.name.endsWith('.dto.ts') ? [path] : [];
  });
}

/** Request DTOs: every class a *.dto.ts file exports that has rules (its own or inherited), by property. */
async function validatedClasses(): Promise<Map<Constructor, Map<string, ValidationMetadata[]>>> {
  const classes = new Map<Constructor, Map<string, ValidationMetadata[]>>();
  for (const file of dtoFiles(SOURCE)) {
    const exported = (await import(file)) as Record<string, unknown>;
    for (const value of Object.values(exported)) {
      if (typeof value !== 'function') continue;
      const byProperty = new Map<string, ValidationMetadata[]>();
      for (const rule of getMetadataStorage().getTargetValidationMetadatas(value, '', true, false)) {
        byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
      }
      if (byProperty.size) classes.set(value as Constructor, byProperty);
    }
  }
  return classes;
}

/** A body DTO is a component schema; a query DTO is spread into the query parameters of its operations. */
function documentedProperties(
  document: OpenAPIObject,
  name: string,
  properties: string[],
): Map<string, DocumentedProperty>[] {
  const component = document.components?.schemas?.[name] as Schema | undefined;
  if (component) {
    const required = new Set((component.required as string[] | undefined) ?? []);
    const schemas = (component.properties ?? {}) as Record<string, Schema>;
    return [new Map(Object.entries(schemas).map(([key, schema]) => [key, { required: required.has(key), schema }]))];
  }
  const found: Map<string, DocumentedProperty>[] = [];
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, { parameters?: Schema[] }>)) {
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const names = query.map((parameter) => parameter.name as string).sort();
      if (names.length === 0 || names.join() !== [...properties].sort().join()) continue;
      found.push(
        new Map(
          query.map((parameter) => [
            parameter.name as string,
            { required: parameter.required === true, schema: parameter.schema as Schema, inQuery: true },
          ]),
        ),
      );
    }
  }
  return found;
}

let document: OpenAPIObject;

beforeAll(async () => {
  document = await offlineOpenApiDocument();
});

test('every request DTO property is documented exactly as it is validated', async () => {
  const checked: string[] = [];
  const disagreements: string[] = [];
  const agree = (documented: object, validated: object) => {
    if (!isDeepStrictEqual(documented, validated)) {
      disagreements.push(`documented ${JSON.stringify(documented)}\n validated ${JSON.stringify(validated)}`);
    }
  };
  const classes = await validatedClasses();
  for (const [target, rulesByProperty] of classes) {
    // A base class (NewPasswordDto) is documented through the DTOs that extend it.
    if ([...classes.keys()].some((other) => other !== target && Object.prototype.isPrototypeOf.call(target, other))) {
      continue;
    }
    const properties = [...rulesByProperty.keys()];
    const documented = documentedProperties(document, target.name, properties);
    agree({ dto: target.name, documented: documented.length > 0 }, { dto: target.name, documented: true });
    for (const documentedProperties of documented) {
      agree(
        { dto: target.name, properties: [...documentedProperties.keys()].sort() },
        { dto: target.name, properties: [...properties].sort() },
      );
      for (const [property, rules] of rulesByProperty) {
        const inDocument = documentedProperties.get(property);
        if (!inDocument) continue;
        agree(
          { dto: target.name, ...fromDocument(property, inDocument) },
          { dto: target.name, ...fromRules(property, rules, inDocument.inQuery) },
        );
      }
    }
    checked.push(target.name);
  }
  expect([...new Set(disagreements)]).toEqual([]);
  // The scan saw the DTOs (a broken scan would check nothing and pass).
  expect(checked).toEqual(
    expect.arrayContaining(['CreateClientDto', 'UpdateClientDto', 'ListClientsQuery', 'LoginDto']),
  );
});
