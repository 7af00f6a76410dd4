import type { Locator } from 'playwright-core';
import { waitFor } from './wait-for.js';

// What the callbacks given to evaluate() see: they run in the page, not in Node.
declare const document: any;

/** The error Mantine shows under an input (the element its aria-describedby names `…-error`), or null. */
export async function errorUnder(input: Locator): Promise<string | null> {
  return input.evaluate((element) => {
    for (const id of (element.getAttribute('aria-describedby') ?? '').split(' ')) {
      if (id.endsWith('-error')) return document.getElementById(id)?.textContent ?? null;
    }
    return null;
  });
}

/** Waits until the input shows exactly `text` under it (null: no error). */
export async function expectErrorUnder(input: Locator, text: string | null): Promise<void> {
  await waitFor(`the error under the input to be ${JSON.stringify(text)}`, async () => {
    const seen = await errorUnder(input);
    if (seen !== text) throw new Error(`it shows ${JSON.stringify(seen)}`);
    return true;
  });
}
