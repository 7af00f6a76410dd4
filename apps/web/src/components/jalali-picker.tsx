import {
  ActionIcon,
  Button,
  Group,
  Popover,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useState, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { localDigits } from '../format.js';
import { addMonths, fromJalali, monthLength, toJalali } from '../jalali.js';
import { formatDate } from './common.js';
import { useEscapeLayer } from './layers.js';

/** "YYYY-MM-DDTHH:mm" in local time: what a datetime-local input holds, and this picker too. */
function localInput(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

const MONTH = new Intl.DateTimeFormat('fa-u-ca-persian', { year: 'numeric', month: 'long' });
// Saturday first, as Persian calendars start the week (6 January 2024 was a Saturday).
const WEEKDAYS = Array.from({ length: 7 }, (_, i) =>
  new Intl.DateTimeFormat('fa', { weekday: 'narrow' }).format(new Date(2024, 0, 6 + i, 12)),
);
const HOURS = Array.from({ length: 24 }, (_, h) => ({
  value: String(h),
  label: localDigits(String(h).padStart(2, '0'), 'fa'),
}));
const MINUTES = Array.from({ length: 60 }, (_, m) => ({
  value: String(m),
  label: localDigits(String(m).padStart(2, '0'), 'fa'),
}));

/**
 * A date and time on the Persian (Jalali) calendar, for Persian pages: a month of days from
 * Saturday, the hour and minute, and "no expiry". Holds the same local "YYYY-MM-DDTHH:mm" text a
 * datetime-local input does (the browser's own picker is Gregorian only).
 */
export function JalaliDateTimeInput({
  label,
  value,
  onChange,
  error,
  rightSection,
  rightSectionWidth,
  description,
  empty,
  testId = 'expiry-jalali',
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: ReactNode;
  rightSection?: ReactNode;
  rightSectionWidth?: number;
  description?: ReactNode;
  /** What an empty value means, as placeholder and as the clearing button ("No expiry" unless given). */
  empty?: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const chosen = value ? new Date(value) : null;
  const [opened, setOpened] = useState(false);
  // On the Escape stack: Escape closes the calendar, not the dialog under it.
  useEscapeLayer(opened, () => setOpened(false));
  const [view, setView] = useState<{ year: number; month: number }>(() => toJalali(chosen ?? new Date()));
  const picked = chosen ? toJalali(chosen) : null;
  const first = fromJalali({ ...view, day: 1 });
  const blanks = (first.getDay() + 1) % 7;
  const days = monthLength(view.year, view.month);
  const at = (hours: number, minutes: number, day = chosen ?? new Date()) => {
    const date = new Date(day);
    date.setHours(hours, minutes, 0, 0);
    return localInput(date);
  };
  const pick = (day: number) =>
    onChange(at(chosen?.getHours() ?? 0, chosen?.getMinutes() ?? 0, fromJalali({ ...view, day })));
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" shadow="md" trapFocus closeOnEscape={false}>
      <Popover.Target>
        <TextInput
          label={label}
          readOnly
          // It opens a calendar: a combobox may say so (aria-expanded, aria-haspopup), a text box may not.
          role="combobox"
          value={chosen ? formatDate(chosen.getTime(), 'fa') : ''}
          placeholder={empty ?? t('clients.noExpiry')}
          description={description}
          onClick={() => setOpened((open) => !open)}
          error={error}
          rightSection={rightSection}
          rightSectionWidth={rightSectionWidth}
          data-testid={testId}
        />
      </Popover.Target>
      <Popover.Dropdown data-testid="jalali-calendar" aria-label={t('clients.pickDate')}>
        <Stack gap="xs" w={252}>
          <Group justify="space-between" wrap="nowrap">
            <ActionIcon
              variant="subtle"
              aria-label={t('clients.previousMonth')}
              onClick={() => setView(addMonths(view, -1))}
            >
              <IconChevronRight size={16} />
            </ActionIcon>
            <Text fw={600} size="sm" data-testid="jalali-month">
              {MONTH.format(first)}
            </Text>
            <ActionIcon
              variant="subtle"
              aria-label={t('clients.nextMonth')}
              onClick={() => setView(addMonths(view, 1))}
            >
              <IconChevronLeft size={16} />
            </ActionIcon>
          </Group>
          <SimpleGrid cols={7} spacing={2} verticalSpacing={2}>
            {WEEKDAYS.map((name) => (
              <Text key={name} size="xs" c="dimmed" ta="center">
                {name}
              </Text>
            ))}
            {Array.from({ length: blanks }, (_, i) => (
              <span key={`blank-${i}`} />
            ))}
            {Array.from({ length: days }, (_, i) => i + 1).map((day) => {
              const selected = picked?.year === view.year && picked.month === view.month && picked.day === day;
              return (
                <UnstyledButton
                  key={day}
                  onClick={() => pick(day)}
                  aria-pressed={selected}
                  ta="center"
                  py={4}
                  bg={selected ? 'var(--mantine-primary-color-filled)' : undefined}
                  c={selected ? 'white' : undefined}
                  style={{ borderRadius: 4 }}
                  data-testid="jalali-day"
                >
                  {localDigits(day, 'fa')}
                </UnstyledButton>
              );
            })}
          </SimpleGrid>
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <Select
              label={t('clients.time')}
              data={HOURS}
              value={String(chosen?.getHours() ?? 0)}
              onChange={(hours) => hours && onChange(at(Number(hours), chosen?.getMinutes() ?? 0))}
              allowDeselect={false}
              comboboxProps={{ withinPortal: false }}
              w={80}
            />
            <Select
              aria-label={t('clients.time')}
              data={MINUTES}
              value={String(chosen?.getMinutes() ?? 0)}
              onChange={(minutes) => minutes && onChange(at(chosen?.getHours() ?? 0, Number(minutes)))}
              allowDeselect={false}
              comboboxProps={{ withinPortal: false }}
              w={80}
            />
          </Group>
          <Button variant="subtle" size="xs" onClick={() => onChange('')}>
            {empty ?? t('clients.noExpiry')}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * A local date and time ("YYYY-MM-DDTHH:mm", or "" for none): the Persian calendar on Persian
 * pages, the browser's datetime-local input (Gregorian only, its placeholder in Latin) otherwise.
 */
export function DateTimeField({
  label,
  description,
  value,
  onChange,
  error,
  empty,
  style,
  testId,
}: {
  label: string;
  description?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: ReactNode;
  /** What an empty value means, shown on Persian pages ("No expiry" unless given). */
  empty?: string;
  style?: CSSProperties;
  testId: string;
}) {
  const { i18n } = useTranslation();
  if (i18n.language === 'fa')
    return (
      <div style={style}>
        <JalaliDateTimeInput
          label={label}
          description={description}
          value={value}
          onChange={onChange}
          error={error}
          empty={empty}
          testId={testId}
        />
      </div>
    );
  return (
    <TextInput
      type="datetime-local"
      label={label}
      description={description}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      style={style}
      data-testid={testId}
    />
  );
}
