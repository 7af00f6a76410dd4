import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './locales/en.js';
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

/**
 * English is in the first load (it is every other language's fallback); Persian comes as its own
 * chunk when it is the language (at start, or when switched to): an English first load does not
 * carry it. Nothing renders before `i18nReady` (main.tsx), so no English flashes before Persian.
 */
async function bundleOf(language: Language): Promise<Record<string, unknown> | undefined> {
  if (language !== 'fa') return undefined;
  return (await import('./locales/fa.js')).fa;
}

export const i18nReady: Promise<void> = bundleOf(initial).then(async (bundle) => {
  await i18next.use(initReactI18next).init({
    resources: { en: { translation: en }, ...(bundle ? { [initial]: { translation: bundle } } : {}) },
    lng: initial,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
  });
  // `{{count, n}}`: a number in the language's digits (Persian's are written with it; English's stay as given).
  i18next.services.formatter?.add('n', (value: unknown, language?: string) =>
    localDigits(typeof value === 'number' || typeof value === 'string' ? value : String(value), language),
  );
});
applyToDocument(initial);
i18next.on('languageChanged', (language) => {
  localStorage.setItem(STORED, language);
  applyToDocument(language);
});

/** Switches the language once its texts are loaded (the page never shows keys in between). */
export async function switchLanguage(language: Language): Promise<void> {
  if (!i18next.hasResourceBundle(language, 'translation')) {
    const bundle = await bundleOf(language);
    if (bundle) i18next.addResourceBundle(language, 'translation', bundle);
  }
  await i18next.changeLanguage(language);
}

export { i18next };
