import i18next from 'i18next';

/**
 * Numbers in the page's language: one digit system per language (Persian digits in Persian, the
 * decimal separator "٫"), so no Latin digit shows in a Persian page but in what is Latin by
 * nature (addresses, keys, names, versions). English numbers are written as before.
 */
const PERSIAN_DIGITS = '۰۱۲۳۴۵۶۷۸۹';

function persian(language?: string): boolean {
  return (language ?? i18next.language) === 'fa';
}

/** A number: `formatNumber(4.7, {maximumFractionDigits: 1})` is "4.7" or "۴٫۷". */
export function formatNumber(value: number, options: Intl.NumberFormatOptions = {}, language?: string): string {
  return new Intl.NumberFormat(persian(language) ? 'fa' : 'en', { useGrouping: false, ...options }).format(value);
}

/** A text made of numbers and signs ("12 / 254", "-3"), its digits in the page's language. */
export function localDigits(text: string | number, language?: string): string {
  const value = String(text);
  return persian(language) ? value.replace(/[0-9]/g, (digit) => PERSIAN_DIGITS[Number(digit)]!) : value;
}

/** A percentage of 0..100: "45%" or "۴۵٪". */
export function formatPercent(value: number, language?: string): string {
  return formatNumber(value / 100, { style: 'percent', maximumFractionDigits: 0 }, language);
}

/** Persian (۰–۹) and Arabic-Indic (٠–٩) digits as Latin ones, and the Arabic decimal separator "٫" as ".". */
export function latinDigits(text: string): string {
  return text.replace(/[\u06F0-\u06F9\u0660-\u0669\u066B]/g, (char) => {
    const code = char.charCodeAt(0);
    if (code === 0x066b) return '.';
    return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
  });
}

/** A number as typed in the page's digits: "12.5" is "۱۲٫۵" in Persian (no grouping is added). */
export function localNumberText(text: string, language?: string): string {
  return persian(language) ? localDigits(text, language).replaceAll('.', '٫') : text;
}
