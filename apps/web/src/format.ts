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
