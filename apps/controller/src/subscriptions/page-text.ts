/**
 * The public subscription page's words, in English and Persian. The page is served by the
 * controller without the web app (no scripts, its own strict CSP: subscription-page.ts), so its
 * strings live beside its renderer; Persian is typed against English's keys, as the web app's are.
 */
export const PAGE_TEXT_EN = {
  statusLabel: 'Status',
  status: {
    active: 'Active',
    disabled: 'Disabled',
    expired: 'Expired',
    exhausted: 'Out of traffic',
  },
  why: {
    active: '',
    disabled: 'Your provider has turned this subscription off. Contact support to turn it back on.',
    expired: 'This subscription has expired. Contact support to renew it.',
    exhausted: 'This subscription has used all of its traffic. Contact support for more.',
  },
  usage: 'Usage',
  usedOf: '{used} of {total}',
  unlimited: 'unlimited',
  upload: 'Upload',
  download: 'Download',
  expiry: 'Expires',
  never: 'never',
  daysLeft: '{days} days left',
  afterFirstUse: '{duration} from the first connection',
  day: '{n} day',
  days: '{n} days',
  hour: '{n} hour',
  hours: '{n} hours',
  and: ' and ',
  devices: 'Devices',
  noDevices: 'No configs yet.',
  scan: 'Scan this code in the WireGuard app, or download the file and import it.',
  downloadConfig: 'Download config',
  showConfig: 'Show the config text',
  downloadAll: 'Download every config (zip)',
  support: 'Support',
  language: 'Language',
  hiddenConfigs: 'Configs are shown again once the subscription is active.',
  previewNote: 'Preview with a sample customer: nothing here is real.',
  oneTimeTitle: 'Your WireGuard config',
  oneTimeNote: 'This link works once: the config downloads when you press the button, and the link stops working.',
  oneTimeExpires: 'Use it before {time}.',
  oneTimeDownload: 'Download the config',
  bytes: { B: 'B', KiB: 'KiB', MiB: 'MiB', GiB: 'GiB', TiB: 'TiB' },
};

export type PageText = typeof PAGE_TEXT_EN;

export const PAGE_TEXT_FA: PageText = {
  statusLabel: 'وضعیت',
  status: {
    active: 'فعال',
    disabled: 'غیرفعال',
    expired: 'منقضی',
    exhausted: 'حجم تمام شده',
  },
  why: {
    active: '',
    disabled: 'ارائه‌دهنده این اشتراک را غیرفعال کرده است. برای فعال‌سازی دوباره با پشتیبانی تماس بگیرید.',
    expired: 'مهلت این اشتراک تمام شده است. برای تمدید با پشتیبانی تماس بگیرید.',
    exhausted: 'حجم این اشتراک تمام شده است. برای حجم بیشتر با پشتیبانی تماس بگیرید.',
  },
  usage: 'مصرف',
  usedOf: '{used} از {total}',
  unlimited: 'نامحدود',
  upload: 'ارسال',
  download: 'دریافت',
  expiry: 'انقضا',
  never: 'هرگز',
  daysLeft: '{days} روز مانده',
  afterFirstUse: '{duration} پس از نخستین اتصال',
  day: '{n} روز',
  days: '{n} روز',
  hour: '{n} ساعت',
  hours: '{n} ساعت',
  and: ' و ',
  devices: 'دستگاه‌ها',
  noDevices: 'هنوز پیکربندی‌ای وجود ندارد.',
  scan: 'این کد را در برنامهٔ WireGuard اسکن کنید، یا فایل را دریافت و وارد کنید.',
  downloadConfig: 'دریافت پیکربندی',
  showConfig: 'نمایش متن پیکربندی',
  downloadAll: 'دریافت همهٔ پیکربندی‌ها (zip)',
  support: 'پشتیبانی',
  language: 'زبان',
  hiddenConfigs: 'پیکربندی‌ها پس از فعال شدن دوبارهٔ اشتراک نمایش داده می‌شوند.',
  previewNote: 'پیش‌نمایش با یک مشتری نمونه: هیچ‌چیز این صفحه واقعی نیست.',
  oneTimeTitle: 'پیکربندی WireGuard شما',
  oneTimeNote: 'این پیوند فقط یک بار کار می‌کند: با زدن دکمه پیکربندی دریافت می‌شود و پیوند دیگر کار نمی‌کند.',
  oneTimeExpires: 'پیش از {time} از آن استفاده کنید.',
  oneTimeDownload: 'دریافت پیکربندی',
  bytes: { B: 'بایت', KiB: 'کیلوبایت', MiB: 'مگابایت', GiB: 'گیگابایت', TiB: 'ترابایت' },
};

export const PAGE_TEXT = { en: PAGE_TEXT_EN, fa: PAGE_TEXT_FA } as const;
export type PageLocale = keyof typeof PAGE_TEXT;
