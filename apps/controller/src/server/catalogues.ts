import { en } from '../../../web/src/locales/en.js';
import { fa } from '../../../web/src/locales/fa.js';

/**
 * The web panel's message catalogues, served by GET /api/i18n/{locale} so other front ends and
 * scripts use the panel's own words. Imported from the web app's source rather than copied: one
 * catalogue, and the web app's key check (fa against en) covers both.
 */
export const CATALOGUES = {
  en: { direction: 'ltr', messages: en },
  fa: { direction: 'rtl', messages: fa },
} as const;
export type Locale = keyof typeof CATALOGUES;
export const LOCALES = Object.keys(CATALOGUES) as Locale[];

export function isLocale(value: string): value is Locale {
  return Object.hasOwn(CATALOGUES, value);
}
