import { NumberInput as MantineNumberInput, type NumberInputProps } from '@mantine/core';
import { useMergedRef } from '@mantine/hooks';
import { useCallback, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { latinDigits, localNumberText } from '../format.js';

/** Marks an input whose `value` property is already wrapped. */
const WRAPPED = Symbol('localDigits');

/**
 * Mantine's NumberInput in the page's digit system (issue 21, item 5): a Persian page shows
 * "۱۲٫۵", an English one "12.5", and either page takes Persian, Arabic-Indic or Latin digits as
 * they are typed or pasted, normalised to the page's.
 *
 * Mantine's input (react-number-format) reads and writes the element's `value` itself and knows
 * Latin digits only, and it has no option for other numerals. So the element's own `value`
 * property is wrapped: code reading it (Mantine, React's change tracking, a test's inputValue)
 * gets Latin digits, and what is written to it is shown in the page's digits. Each of those
 * digits is one UTF-16 unit, as a Latin digit is, so the caret positions the library computes
 * hold for the text on screen.
 */
export function NumberInput({ ref, ...props }: NumberInputProps) {
  const { i18n } = useTranslation();
  const language = useRef(i18n.language);
  language.current = i18n.language;
  const element = useRef<HTMLInputElement | null>(null);
  const wrap = useCallback((input: HTMLInputElement | null) => {
    element.current = input;
    if (input && !(WRAPPED in input)) showInPageDigits(input, () => language.current);
  }, []);
  useEffect(() => {
    // A language switch: the same number, written again in the new language's digits.
    const input = element.current;
    if (input) rewrite(input);
  }, [i18n.language]);
  return <MantineNumberInput {...props} ref={useMergedRef(ref, wrap)} />;
}

function showInPageDigits(input: HTMLInputElement, language: () => string): void {
  // React's value tracker when it set one on the element, else the DOM's own property.
  const inner =
    Object.getOwnPropertyDescriptor(input, 'value') ??
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!;
  Object.defineProperty(input, 'value', {
    configurable: true,
    get(this: HTMLInputElement) {
      return latinDigits(String(inner.get!.call(this)));
    },
    set(this: HTMLInputElement, text: string) {
      inner.set!.call(this, localNumberText(String(text), language()));
    },
  });
  Object.defineProperty(input, WRAPPED, { value: true });
  // What was rendered before the wrapping, in the page's digits.
  rewrite(input);
}

/** Writes an input's number again through its wrapped `value`: in the page's digits now. */
function rewrite(input: HTMLInputElement): void {
  const latin = input.value;
  input.value = latin;
}
