/**
 * The Persian (Jalali, Solar Hijri) calendar from the browser's own Intl (its `persian`
 * calendar), so no calendar library ships with the panel: a day's Jalali date is read with
 * Intl, and a Jalali date's day found by stepping from an estimate (Nowruz is within a day or
 * two of 21 March). Dates are local days, taken at noon so no clock change moves them.
 */
export interface JalaliDate {
  year: number;
  /** 1..12, Farvardin first. */
  month: number;
  day: number;
}

const PARTS = new Intl.DateTimeFormat('en-u-ca-persian-nu-latn', { year: 'numeric', month: 'numeric', day: 'numeric' });
const DAY = 86_400_000;

export function toJalali(date: Date): JalaliDate {
  const parts = Object.fromEntries(PARTS.formatToParts(date).map((part) => [part.type, part.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day) };
}

function compare(a: JalaliDate, b: JalaliDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** The local day (at noon) of a Jalali date; a day past its month's end runs into the next month. */
export function fromJalali({ year, month, day }: JalaliDate): Date {
  const sinceNowruz = (month <= 6 ? (month - 1) * 31 : 186 + (month - 7) * 30) + day - 1;
  const guess = new Date(year + 621, 2, 21, 12);
  guess.setDate(guess.getDate() + sinceNowruz);
  const target = { year, month, day };
  // At most a few steps: the estimate is off by the days Nowruz moves (and a month-end overrun).
  for (let step = 0; step < 5; step++) {
    const order = compare(toJalali(guess), target);
    if (order === 0) return guess;
    guess.setDate(guess.getDate() + (order < 0 ? 1 : -1));
  }
  return guess;
}

/** 31 days in the first six months, 30 in the next five, 29 or 30 in Esfand. */
export function monthLength(year: number, month: number): number {
  if (month <= 6) return 31;
  if (month <= 11) return 30;
  const esfand = fromJalali({ year, month: 12, day: 1 });
  const nowruz = fromJalali({ year: year + 1, month: 1, day: 1 });
  return Math.round((nowruz.getTime() - esfand.getTime()) / DAY);
}

/** The month after (+1) or before (-1). */
export function addMonths({ year, month }: Pick<JalaliDate, 'year' | 'month'>, months: number) {
  const index = year * 12 + (month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}
