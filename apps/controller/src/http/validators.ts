import {
  isIP,
  IsISO8601,
  Matches,
  registerDecorator,
  ValidateBy,
  ValidateIf,
  type ValidationOptions,
} from 'class-validator';
import { isIpv4 } from '#libs/wireguard/ipv4.js';

/** One DNS label (RFC 1123): letters, digits and inner hyphens, 1..63 characters. */
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ALL_DIGITS = /^[0-9]+$/;

/** An IPv4 address in plain dotted-quad form (no leading zeros) or an IPv6 address without a zone. */
export function isIpAddress(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (isIpv4(value as unknown)) return true; // `as unknown`: a false type guard must not narrow value to never
  // A zone (fe80::1%eth0) only means something on the host that wrote it.
  return !value.includes('%') && isIP(value, 6);
}

/**
 * What a client or agent can dial: an IP address or an RFC 1123 hostname. A name whose last
 * label is all digits is refused, so a mistyped address such as 10.0.0.256 is not taken for a
 * hostname. Brackets, ports and trailing dots are refused: the value is stored bare and the
 * port lives in its own field.
 */
export function isHostAddress(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 253) return false;
  if (isIpAddress(value as unknown)) return true;
  const labels = value.split('.');
  return labels.every((label) => LABEL.test(label)) && !ALL_DIGITS.test(labels[labels.length - 1]);
}

export function IsHostAddress(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isHostAddress',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be an IPv4 address, an IPv6 address or a hostname`,
        ...options,
      },
      validator: { validate: (value: unknown) => isHostAddress(value) },
    });
}

export function IsIpAddress(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIpAddress',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must hold IPv4 or IPv6 addresses`, ...options },
      validator: { validate: (value: unknown) => isIpAddress(value) },
    });
}

/**
 * Optional, but not nullable: an absent field is skipped, while `null` is validated (and so
 * refused by the type rule) instead of slipping through to a NOT NULL column.
 */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

// Case-insensitive by spelling ([Tt], [Zz]), not by a flag: the schema's pattern can carry no flags.
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;
const DATE_TIME_MESSAGE = '$property must be an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z';
/** The calendar both PostgreSQL and JavaScript print alike (four-digit years, AD). */
const EARLIEST_DATE_TIME = Date.UTC(1970, 0, 1);
const LATEST_DATE_TIME = Date.UTC(9999, 11, 31, 23, 59, 59);

/** An ISO 8601 date-time with a time zone, between 1970 and the end of 9999 (an expiry: clients', tokens'). */
export function IsDateTimeWithZone(): PropertyDecorator {
  const decorators = [
    IsISO8601({ strict: true, strictSeparator: true }, { message: DATE_TIME_MESSAGE }),
    Matches(ISO_WITH_ZONE, { message: DATE_TIME_MESSAGE }),
    ValidateBy({
      name: 'expiryInRange',
      validator: {
        // A zone offset can carry 9999-12-31T23:59 into year 10000, which PostgreSQL stores but prints unreadably.
        validate: (value: unknown) =>
          typeof value !== 'string' ||
          !(Date.parse(value) < EARLIEST_DATE_TIME || Date.parse(value) > LATEST_DATE_TIME),
        defaultMessage: (args) => `${args?.property} must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z`,
      },
    }),
  ];
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}
