import { ActionIcon, Button, CopyButton, Group, Text, Title, Tooltip, type ButtonProps } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { messageOf } from '../api.js';
import { formatNumber } from '../format.js';
import i18next from 'i18next';
import { ConfirmDialog } from './confirm-dialog.js';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      <Title order={2}>{title}</Title>
      <Group gap="xs" maw="100%">
        {children}
      </Group>
    </Group>
  );
}

/** What an empty list says: what there is not, and what to do next. */
export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" ta="center" py="xl" data-testid="empty-state">
      {children}
    </Text>
  );
}

/** A copy button: labelled (`label`), or an icon whose accessible name is `name` ("Copy" when not given). */
export function Copy({ value, label, name }: { value: string; label?: string; name?: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) =>
        label ? (
          <Button
            size="xs"
            variant="light"
            leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
            onClick={copy}
          >
            {copied ? t('common.copied') : label}
          </Button>
        ) : (
          <Tooltip label={copied ? t('common.copied') : (name ?? t('common.copy'))} withArrow>
            <ActionIcon variant="subtle" onClick={copy} aria-label={name ?? t('common.copy')}>
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )
      }
    </CopyButton>
  );
}

/** A destructive action: asks first, in words that name what will happen. */
export function ConfirmButton({
  children,
  message,
  onConfirm,
  confirmLabel,
  typeToConfirm,
  ...props
}: ButtonProps & {
  message: ReactNode;
  onConfirm: () => unknown;
  /** The confirm button's label; by default the button's own (the action, said twice alike). */
  confirmLabel?: string;
  /** A name to type before the confirm button works. */
  typeToConfirm?: string;
  children: ReactNode;
  'data-testid'?: string;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button color="red" variant="light" size="xs" {...props} onClick={() => setOpen(true)}>
        {children}
      </Button>
      <ConfirmDialog
        opened={open}
        onClose={() => setOpen(false)}
        message={message}
        confirmLabel={confirmLabel ?? (typeof children === 'string' ? children : t('common.confirm'))}
        onConfirm={onConfirm}
        typeToConfirm={typeToConfirm}
      />
    </>
  );
}

/** A row's edit and delete buttons; delete asks first with `confirmMessage` (and the name typed, if `typeToConfirm`). */
export function EditAndDelete({
  onEdit,
  confirmMessage,
  onDelete,
  typeToConfirm,
}: {
  onEdit: () => void;
  confirmMessage: string;
  onDelete: () => unknown;
  typeToConfirm?: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Button size="xs" variant="default" onClick={onEdit}>
        {t('common.edit')}
      </Button>
      <ConfirmButton message={confirmMessage} onConfirm={onDelete} typeToConfirm={typeToConfirm}>
        {t('common.delete')}
      </ConfirmButton>
    </>
  );
}

/** What a failed action outside a form says: the API's message, as a red notification. */
export function notifyFailure(error: unknown): void {
  notifications.show({ message: messageOf(error), color: 'red' });
}

/**
 * A value read left to right whatever the page's direction (addresses, sizes, durations, keys,
 * commands): isolated, so a right-to-left page neither reorders its parts ("1080:[db8::1:2001]",
 * "GB 2.7") nor lets it reorder the words around it.
 */
export function Ltr({ children }: { children: ReactNode }) {
  return <bdi dir="ltr">{children}</bdi>;
}

/**
 * Sizes and rates ("↑ 2.7 GiB · ↓ 1.0 GiB", "۲٫۷ گیگابایت / ∞") isolated in the page's direction:
 * a Persian size is Persian words and digits, so a right-to-left page reads "used / quota" and
 * "↓ … ↑ …" from the right, in order, with each unit after its number; an English one left to right.
 */
export function Sizes({ children }: { children?: ReactNode }) {
  const { i18n } = useTranslation();
  return <bdi dir={i18n.dir(i18n.language)}>{children}</bdi>;
}

/** A piece of a value that a line never breaks inside ("2.7 GiB / 23.5 GiB", ":51820"). */
export function Unbroken({ children }: { children: ReactNode }) {
  return <span style={{ whiteSpace: 'nowrap' }}>{children}</span>;
}

/**
 * host:port read left to right, never broken inside: on a narrow line a long host may break
 * (before its port first, then inside the host), never ":51820" or the port itself.
 */
export function HostPort({ host, port }: { host: string; port: number }) {
  const text = hostPort(host, port);
  const colon = text.lastIndexOf(':');
  return (
    <bdi dir="ltr">
      {text.slice(0, colon)}
      <wbr />
      <Unbroken>{text.slice(colon)}</Unbroken>
    </bdi>
  );
}

/** An arrow pointing forward in the reading direction (→ left to right, ← right to left). */
export function ForwardArrow() {
  const { i18n } = useTranslation();
  return <>{i18n.dir(i18n.language) === 'rtl' ? '←' : '→'}</>;
}

/** Powers of 1024, so named as such: 5,000,000,000 bytes is 4.7 GiB ("4.7 GB" would be a decimal 4.7e9). */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** The same binary units in Persian (کیلوبایت is 1024 بایت), as the public subscription page names them. */
const PERSIAN_UNITS = ['بایت', 'کیلوبایت', 'مگابایت', 'گیگابایت', 'ترابایت', 'پتابایت'];

/** A size in the page's language: "4.7 GiB", "۴٫۷ گیگابایت" (shown inside `<Sizes>`). */
export function formatBytes(bytes: number | null | undefined): string {
  return sized(bytes, '');
}

/** A rate, bytes a second: "1.2 MiB/s", "۱٫۲ مگابایت/ثانیه". */
export function formatRate(bytes: number): string {
  return sized(bytes, i18next.language === 'fa' ? '/ثانیه' : '/s');
}

function sized(bytes: number | null | undefined, per: string): string {
  if (bytes === null || bytes === undefined) return '∞';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 ? 0 : 1;
  const number = formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  // A no-break space: a line never leaves the unit apart from its number ("2.7" / "GiB").
  if (i18next.language === 'fa') return `${number}\u00a0${PERSIAN_UNITS[unit]}${per}`;
  return `${number}\u00a0${UNITS[unit]}${per}`;
}

/** host:port, an IPv6 address in brackets (the port would read as part of it). */
export function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function formatDate(value: string | number | null | undefined, language: string): string {
  if (value === null || value === undefined) return '—';
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(value));
}

/** How long ago, in words of the language ("5 minutes ago", "۵ دقیقه پیش"); "—" for never. */
export function formatAgo(value: string | null | undefined, language: string, now = Date.now()): string {
  if (value === null || value === undefined) return '—';
  const seconds = Math.round((new Date(value).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of steps)
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(seconds, 'second');
}

/** "3d 4h", "2h 17m", "17m"; in Persian "۱۷ دقیقه". */
export function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const key = d ? 'duration.days' : h ? 'duration.hours' : 'duration.minutes';
  return i18next.t(key, { d, h, m });
}
