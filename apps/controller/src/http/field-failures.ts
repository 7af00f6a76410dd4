import type { ValidationError } from '@nestjs/common';
import type { FieldError } from '#libs/contracts/api-error.js';

/**
 * Turns class-validator's results into every failing field, each with a stable code (what the
 * web panel translates), its numbers (`params`) and a sentence for people. class-validator's own
 * texts ("name must be longer than or equal to 1 characters") are read only for their numbers;
 * a DTO's own message (`{ message: … }`) is already written for people and kept.
 */

/** Rules whose failure says the value has the wrong type: reported instead of the rules that then also fail. */
const TYPE_RULES = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isDateString',
  'isIn',
  'isEnum',
  'isUuid',
  'nestedValidation',
]);

interface Reading {
  code: string;
  /** class-validator's default text for the rule, its numbers captured in order. */
  template?: RegExp;
  params?: (numbers: string[]) => Record<string, number | string>;
  sentence: (label: string, params: Record<string, number | string>) => string;
}

const number = (value: string | undefined) => Number(value);

const READINGS: Record<string, Reading> = {
  isString: { code: 'text', template: /must be a string$/, sentence: (l) => `${l} must be text.` },
  isInt: {
    code: 'wholeNumber',
    template: /must be an integer number$/,
    sentence: (l) => `${l} must be a whole number.`,
  },
  isNumber: { code: 'number', template: /must be a number/, sentence: (l) => `${l} must be a number.` },
  isBoolean: { code: 'boolean', template: /must be a boolean value$/, sentence: (l) => `${l} must be true or false.` },
  isArray: { code: 'list', template: /must be an array$/, sentence: (l) => `${l} must be a list.` },
  isObject: { code: 'object', template: /must be an object$/, sentence: (l) => `${l} must be an object.` },
  isUuid: { code: 'id', template: /must be a UUID$/, sentence: (l) => `${l} must be an id (a UUID).` },
  isDateString: {
    code: 'dateTime',
    template: /must be a valid ISO 8601 date string$/,
    sentence: (l) => `${l} must be a date and time such as 2027-01-01T00:00:00Z.`,
  },
  isIso8601: {
    code: 'dateTime',
    template: /must be a valid ISO 8601 date string$/,
    sentence: (l) => `${l} must be a date and time such as 2027-01-01T00:00:00Z.`,
  },
  isIn: {
    code: 'oneOf',
    template: /must be one of the following values: (.*)$/,
    params: ([values]) => ({ values: values ?? '' }),
    sentence: (l, p) => `${l} must be one of: ${p.values}.`,
  },
  isEnum: {
    code: 'oneOf',
    template: /must be one of the following values: (.*)$/,
    params: ([values]) => ({ values: values ?? '' }),
    sentence: (l, p) => `${l} must be one of: ${p.values}.`,
  },
  minLength: {
    code: 'tooShort',
    template: /must be longer than or equal to (\d+) characters$/,
    params: ([min]) => ({ min: number(min) }),
    sentence: (l, p) => (p.min === 1 ? `${l} cannot be empty.` : `${l} needs at least ${p.min} characters.`),
  },
  maxLength: {
    code: 'tooLong',
    template: /must be shorter than or equal to (\d+) characters$/,
    params: ([max]) => ({ max: number(max) }),
    sentence: (l, p) => `${l} can be at most ${p.max} characters long.`,
  },
  min: {
    code: 'tooSmall',
    template: /must not be less than (-?[\d.e+]+)$/,
    params: ([min]) => ({ min: number(min) }),
    sentence: (l, p) => `${l} must be ${p.min} or more.`,
  },
  max: {
    code: 'tooLarge',
    template: /must not be greater than (-?[\d.e+]+)$/,
    params: ([max]) => ({ max: number(max) }),
    sentence: (l, p) => `${l} must be ${p.max} or less.`,
  },
  arrayMinSize: {
    code: 'tooFew',
    template: /must contain at least (\d+) elements$/,
    params: ([min]) => ({ min: number(min) }),
    sentence: (l, p) => `${l} needs at least ${p.min} ${p.min === 1 ? 'entry' : 'entries'}.`,
  },
  arrayMaxSize: {
    code: 'tooMany',
    template: /must contain no more than (\d+) elements$/,
    params: ([max]) => ({ max: number(max) }),
    sentence: (l, p) => `${l} can have at most ${p.max} ${p.max === 1 ? 'entry' : 'entries'}.`,
  },
  arrayUnique: {
    code: 'repeated',
    template: /elements must be unique$/,
    sentence: (l) => `${l} must not repeat an entry.`,
  },
  matches: { code: 'format', sentence: (l) => `${l} is not in the expected format.` },
  whitelistValidation: { code: 'unknown', sentence: (l) => `${l} is not a field this request takes.` },
};

/** `Length(min, max)` reports either bound under one rule name: read which from its text. */
const LENGTH_READINGS = [READINGS.minLength!, READINGS.maxLength!];

/**
 * The field for people: `blockIps.0` is `entry 1 of "blockIps"`, `items.2.name` is `"name" of
 * entry 3 of "items"`; names are quoted as they are (they are the API's words, case included).
 */
export function fieldLabel(path: string): string {
  const words = path
    .split('.')
    .filter(Boolean)
    .reverse()
    .map((part) => (/^\d+$/.test(part) ? `entry ${Number(part) + 1}` : `"${part}"`));
  return words.length ? words.join(' of ') : 'the request';
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** One rule's failure as a FieldError. */
export function readFailure(field: string, rule: string, text: string): FieldError {
  const label = capitalised(fieldLabel(field));
  const readings = rule === 'isLength' ? LENGTH_READINGS : READINGS[rule] ? [READINGS[rule]] : [];
  for (const reading of readings) {
    const match = reading.template?.exec(text);
    if (reading.template && !match) continue;
    const params = reading.params ? reading.params(match?.slice(1) ?? []) : {};
    // A rule with no default text to read (`matches`) keeps the DTO's own words when it has some.
    if (!reading.template && text && rule !== 'whitelistValidation') {
      return { field, code: reading.code, message: ownWords(field, text) };
    }
    return { field, code: reading.code, message: reading.sentence(label, params), ...withParams(params) };
  }
  // A DTO's own words for a rule whose code needs numbers (tooFew's {min}) it cannot give: the
  // words alone, under `invalid` (else the panel would say "Needs at least 0 entries").
  const reading = READINGS[rule];
  const code = reading && !reading.params ? reading.code : 'invalid';
  return { field, code, message: ownWords(field, text) };
}

/**
 * A DTO's own message, already for people ("name must not contain control characters"): made a
 * sentence, the field it starts with named as the other sentences name it.
 */
function ownWords(field: string, text: string): string {
  const name = field.split('.').pop() ?? '';
  const rest = name && text.startsWith(`${name} `) ? text.slice(name.length) : undefined;
  return sentence(rest === undefined ? text : `${fieldLabel(field)}${rest}`);
}

const withParams = (params: Record<string, number | string>) => (Object.keys(params).length ? { params } : {});

/** A message as a sentence: a capital first letter and a full stop. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return 'This value is not accepted.';
  return capitalised(/[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`);
}

/** Every failing field of a (possibly nested) validation result, one failure per field, in order. */
export function fieldFailures(errors: ValidationError[], parent = ''): FieldError[] {
  const failures: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    const rules = Object.keys(constraints);
    if (constraints.whitelistValidation) {
      failures.push(readFailure(field, 'whitelistValidation', ''));
      continue;
    }
    // Absent, not wrong: optional fields skip their rules when absent, so a rule failing on an
    // absent value means the field is required ("must be a string" would send people looking
    // for a wrong type). The value is read here only, never shown.
    if (error.value === undefined && rules.length > 0) {
      failures.push({ field, code: 'required', message: `${capitalised(fieldLabel(field))} is required.` });
      continue;
    }
    // A wrong type explains itself better than the length or range rules that then also fail.
    const rule = rules.find((name) => TYPE_RULES.has(name)) ?? rules[0];
    if (rule !== undefined) failures.push(readFailure(field, rule, constraints[rule]!));
    failures.push(...fieldFailures(error.children ?? [], field));
  }
  return failures;
}
