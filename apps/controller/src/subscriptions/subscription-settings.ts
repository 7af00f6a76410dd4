import { z } from 'zod';

/** What the public page offers apps besides itself (`?format=`). */
export const SUBSCRIPTION_FORMATS = ['conf', 'zip', 'json', 'base64'] as const;
export type SubscriptionFormat = (typeof SUBSCRIPTION_FORMATS)[number];

/** The page's language: fixed, or `auto` (the browser's Accept-Language; English otherwise). */
export const PAGE_LANGUAGES = ['auto', 'en', 'fa'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** GET/PUT /api/subscription: what every client's public page says and offers. */
export interface SubscriptionSettings {
  /** The page's heading and the `profile-title` apps show. */
  title: string;
  /** How a customer reaches support (a URL, a handle or a phone number), shown on the page. */
  supportContact: string;
  formats: SubscriptionFormat[];
  language: PageLanguage;
}

export const SUBSCRIPTION_BOUNDS = { titleLength: 64, supportContactLength: 256 } as const;

export const DEFAULT_SUBSCRIPTION_SETTINGS: Readonly<SubscriptionSettings> = Object.freeze({
  title: 'VPN',
  supportContact: '',
  formats: [...SUBSCRIPTION_FORMATS],
  language: 'auto',
});

/** The settings row keys: the page's settings, and the key links are derived with. */
export const SUBSCRIPTION_SETTINGS_KEY = 'subscription';
export const SUBSCRIPTION_KEY_SETTING = 'subscriptionKey';

/** What the link key is: 32 random bytes in base64 (subscription-token.ts makes it). */
export function isSubscriptionKey(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

/** A stored value that does not read (a damaged restore) reads as the defaults. */
export const storedSubscriptionSettings = z.object({
  title: z.string().max(SUBSCRIPTION_BOUNDS.titleLength),
  supportContact: z.string().max(SUBSCRIPTION_BOUNDS.supportContactLength),
  formats: z.array(z.enum(SUBSCRIPTION_FORMATS)),
  language: z.enum(PAGE_LANGUAGES),
});
