import type { Translation } from './en.js';

/** Persian (right to left). */
export const fa: Translation = {
  nav: { menu: 'منو', overview: 'نمای کلی', clients: 'کاربران', interfaces: 'اینترفیس‌ها', hosts: 'میزبان‌ها', nodes: 'نودها', backups: 'پشتیبان‌ها', system: 'سیستم', settings: 'تنظیمات', api: 'API' },
  header: { language: 'زبان', theme: 'پوسته روشن یا تیره', account: 'حساب', password: 'تغییر گذرواژه', signOut: 'خروج' },
  roles: { owner: 'مالک', admin: 'مدیر', viewer: 'بیننده' },
  connection: { lost: 'ارتباط با پنل قطع شد', retrying: 'در حال تلاش دوباره… آنچه نوشته‌اید حفظ می‌شود.' },
  common: {
    name: 'نام', save: 'ذخیره', saved: 'ذخیره شد', create: 'ایجاد', edit: 'ویرایش', delete: 'حذف', cancel: 'انصراف', confirm: 'تأیید',
    areYouSure: 'مطمئن هستید؟', copy: 'کپی', copied: 'کپی شد', download: 'دانلود', search: 'جستجو',
  },
  signIn: { title: 'ورود به Warren', username: 'نام کاربری', password: 'گذرواژه', submit: 'ورود' },
  account: { current: 'گذرواژه فعلی', new: 'گذرواژه جدید (دست‌کم ۸ نویسه)', changed: 'گذرواژه تغییر کرد؛ نشست‌های دیگر شما بسته شد' },
  overview: {
    updated: 'به‌روزرسانی {{at}}', clients: 'کاربران', clientStates: '{{active}} فعال · {{disabled}} غیرفعال · {{expired}} منقضی · {{exhausted}} تمام‌شده',
    devicesOnline: 'دستگاه‌های آنلاین', traffic: 'ترافیک', nodesInSync: 'نودهای همگام', nodeStates: '{{behind}} عقب · {{offline}} آفلاین',
    host: 'میزبان کنترلر', panel: 'پنل', version: 'نسخه', uptime: 'مدت کار', backends: 'پایگاه داده · صف', interfaces: 'اینترفیس‌ها',
    lastBackup: 'آخرین پشتیبان', lastEnforcement: 'آخرین بررسی سهمیه و انقضا', never: 'هرگز',
  },
  agentState: { 'never-enrolled': 'ثبت نشده', enrolled: 'ثبت‌شده', connected: 'متصل', disconnected: 'قطع' },
  clients: {
    sortLabel: 'ترتیب', sort: { newest: 'جدیدترین', oldest: 'قدیمی‌ترین', name: 'بر اساس نام', traffic: 'بیشترین ترافیک', remaining: 'کمترین باقی‌مانده', expiry: 'نزدیک‌ترین انقضا' },
    new: 'کاربر جدید', searchPlaceholder: 'جستجوی نام، یادداشت یا شناسه تلگرام', anyStatus: 'هر وضعیت', statusLabel: 'وضعیت', group: 'گروه', groups: 'گروه‌ها',
    status: { active: 'فعال', disabled: 'غیرفعال', expired: 'منقضی', exhausted: 'تمام‌شده' },
    empty: 'هنوز کاربری نیست. ابتدا یک اینترفیس بسازید، سپس «کاربر جدید» را بزنید.', noMatch: 'هیچ کاربری با این فیلترها پیدا نشد.',
    usage: 'مصرف', devices: 'دستگاه‌ها', expires: 'انقضا', total: '{{count}} کاربر', total_one: '{{count}} کاربر', total_other: '{{count}} کاربر',
    interfaces: 'اینترفیس‌ها', noInterfaces: 'اینترفیسی نیست: در صفحه اینترفیس‌ها یکی بسازید', quotaGb: 'سهمیه (گیگابایت)', zeroUnlimited: '۰ یعنی نامحدود',
    deviceLimit: 'حداکثر دستگاه', resetCycle: 'بازنشانی ترافیک', cycle: { none: 'هرگز', daily: 'روزانه', weekly: 'هفتگی', monthly: 'ماهانه' },
    telegramId: 'شناسه تلگرام', note: 'یادداشت', enabled: 'فعال', lastHandshake: 'آخرین اتصال', configs: 'کانفیگ‌ها و کد QR',
    reset: 'بازنشانی ترافیک', resetDone: 'ترافیک صفر شد', rotate: 'کلیدهای جدید', rotated: 'کلیدهای جدید ساخته شد: پروفایل‌ها را دوباره دانلود کنید',
    confirmReset: 'ترافیک {{name}} صفر شود؟', confirmRotate: 'برای همه دستگاه‌های {{name}} کلید جدید ساخته شود؟ پروفایل‌های فعلی کار نخواهند کرد.',
    confirmDelete: '{{name}} با همه دستگاه‌هایش حذف شود؟ پروفایل‌هایش کار نخواهند کرد.', confirmDeleteDevice: 'دستگاه {{name}} حذف شود؟ پروفایل‌هایش کار نخواهند کرد.',
    deviceName: 'نام دستگاه جدید', addDevice: 'افزودن دستگاه', online: 'آنلاین', offline: 'آفلاین', downloadProfiles: 'پروفایل‌ها',
    noConfigs: 'کانفیگی نیست: کاربر را به یک اینترفیس وصل کنید.', downloadZip: 'همه به صورت zip', qr: 'کد QR',
  },
  interfaces: {
    new: 'اینترفیس جدید', empty: 'هنوز اینترفیسی نیست: برای افزودن کاربر یکی بسازید.', mode: 'حالت', endpoint: 'نقطه اتصال', subnet: 'زیرشبکه',
    addresses: 'آدرس‌ها', clientsDevices: '{{clients}} کاربر، {{devices}} دستگاه', state: 'وضعیت', running: 'در حال اجرا', pending: 'در حال اعمال', disabled: 'غیرفعال',
    confirmDelete: 'اینترفیس {{name}} حذف شود؟', confirmDeleteUsed: 'اینترفیس {{name}} و {{devices}} حساب دستگاه روی آن حذف شوند؟',
    node: 'نود', localNode: 'نود محلی', endpointHost: 'میزبان نقطه اتصال (آنچه کاربران به آن وصل می‌شوند)', listenPort: 'پورت', enabled: 'فعال',
    subnetNote: 'زیرشبکه تنها وقتی آدرسی تخصیص نیافته قابل تغییر است.',
  },
  hosts: {
    new: 'میزبان جدید', empty: 'میزبانی نیست: کاربران به نقطه اتصال اینترفیس وصل می‌شوند. برای آدرسی دیگر یک میزبان بیفزایید.', needInterface: 'ابتدا یک اینترفیس بسازید.',
    interface: 'اینترفیس', address: 'آدرس', port: 'پورت', portZero: '۰ یعنی پورت اینترفیس', priority: 'اولویت', enabled: 'فعال', disabled: 'غیرفعال',
    confirmDelete: 'میزبان {{name}} حذف شود؟',
  },
  nodes: {
    new: 'افزودن نود', address: 'آدرس', note: 'یادداشت', agent: 'عامل', sync: 'همگامی', interfaces: 'اینترفیس‌ها', local: 'محلی', inSync: 'همگام', behind: 'عقب',
    enrolment: 'فرمان ثبت', enrolCommand: 'ثبت عامل {{name}}', enrolHelp: 'این را روی نود با دسترسی root اجرا کنید. رمز تنها یک بار و تا {{expires}} کار می‌کند.',
    confirmDelete: 'نود {{name}} و اینترفیس‌هایش حذف شوند؟',
  },
  tokens: {
    title: 'توکن‌های API', name: 'نام توکن', issue: 'صدور توکن', issuedTitle: 'توکن «{{name}}» صادر شد', shownOnce: 'همین حالا کپی کنید: تنها همین یک بار نمایش داده می‌شود.',
    empty: 'توکن API نیست. برای فراخوانی API از اسکریپت‌ها یکی صادر کنید.', hint: 'نشانه', owner: 'مالک', lastUsed: 'آخرین استفاده', enabled: 'فعال',
    confirmDelete: 'توکن {{name}} حذف شود؟ اسکریپت‌هایی که از آن استفاده می‌کنند کار نخواهند کرد.',
  },
  backups: {
    create: 'ساخت پشتیبان', created: 'پشتیبان ساخته شد', upload: 'بارگذاری', uploaded: 'پشتیبان بارگذاری شد', restore: 'بازگردانی', restored: 'پشتیبان بازگردانی شد',
    empty: 'هنوز پشتیبانی نیست. «ساخت پشتیبان» را بزنید.', size: 'اندازه', createdAt: 'زمان ساخت', ownerOnly: 'تنها مالک پشتیبان‌ها را مدیریت می‌کند.', waiting: 'در انتظار…',
    running: { backup: 'در حال ساخت پشتیبان', restore: 'در حال بازگردانی' },
    stage: { database: 'پایگاه داده', nodes: 'وضعیت نودها', packing: 'بسته‌بندی', checking: 'بررسی', restoring: 'بازگردانی', retention: 'پشتیبان‌های قدیمی' },
    confirmRestore: '{{name}} بازگردانی شود؟ هر چه پس از آن ساخته شده جایگزین می‌شود.', confirmDelete: 'پشتیبان {{name}} حذف شود؟',
  },
  system: {
    host: 'میزبان', controller: 'کنترلر', cpu: 'پردازنده', memory: 'حافظه', disk: 'دیسک', swap: 'سواپ', network: 'شبکه', load: 'بار', rss: 'حافظه پنل',
    cpuMemory: 'پردازنده، حافظه و دیسک',
  },
  settings: {
    backupIntervalHours: 'پشتیبان هر (ساعت)', zeroOff: '۰ پشتیبان زمان‌بندی‌شده را خاموش می‌کند', backupKeep: 'تعداد پشتیبان نگه‌داشته', probeUrl: 'نشانی آزمون',
    probeTimeoutMs: 'مهلت آزمون (میلی‌ثانیه)', allowPrivateTargets: 'اجازه آدرس‌های خصوصی به عنوان مقصد خروجی و آزمون',
  },
  apiDocs: {
    intro: 'همه نقاط پایانی API پنل. خود پنل تنها از همین‌ها استفاده می‌کند. WARREN_TOKEN را برابر یک توکن API قرار دهید (نودها ← توکن‌های API) و فرمان را اجرا کنید.',
    auth: 'احراز هویت', public: 'عمومی', roles: 'نقش‌ها', query: 'پارامترها', example: 'نمونه بدنه',
  },
};
