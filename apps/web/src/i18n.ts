import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './locales/en.js';
import { fa } from './locales/fa.js';
import { localDigits } from './format.js';

export const LANGUAGES = [
  { code: 'en', label: 'English', dir: 'ltr' },
  { code: 'fa', label: 'فارسی', dir: 'rtl' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

const STORED = 'warren.language';
const stored = localStorage.getItem(STORED);
const initial: Language =
  stored === 'fa' || stored === 'en' ? stored : navigator.language.startsWith('fa') ? 'fa' : 'en';

export function directionOf(language: string): 'ltr' | 'rtl' {
  return LANGUAGES.find((entry) => entry.code === language)?.dir ?? 'ltr';
}

/** Sets the document's language and direction: the whole layout flips with `dir`. */
function applyToDocument(language: string): void {
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, fa: { translation: fa } },
  lng: initial,
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});
// `{{count, n}}`: a number in the language's digits (Persian's are written with it; English's stay as given).
i18next.services.formatter?.add('n', (value: unknown, language?: string) =>
  localDigits(typeof value === 'number' || typeof value === 'string' ? value : String(value), language),
);
applyToDocument(initial);
i18next.on('languageChanged', (language) => {
  localStorage.setItem(STORED, language);
  applyToDocument(language);
});

export { i18next };
