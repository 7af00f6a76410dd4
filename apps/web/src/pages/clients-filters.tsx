import { Group, Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SORTS, STATUSES, type ClientListView, type Sort, type Status } from './clients-params.js';

/**
 * A text field whose value lives in the address: what is typed goes there 150 ms after the last
 * key (refining a value already there replaces the entry, the first letters add one), and a value
 * the address gets from elsewhere (Back, a link) comes into the field.
 */
function useAddressText(value: string, commit: (text: string, replace: boolean) => void) {
  const [text, setText] = useState(value);
  const [debounced] = useDebouncedValue(text.trim(), 150);
  const seenDebounced = useRef(debounced);
  const seenValue = useRef(value);
  useEffect(() => {
    if (seenDebounced.current === debounced) return;
    seenDebounced.current = debounced;
    if (debounced !== value) commit(debounced, value !== '');
  }, [debounced, value, commit]);
  useEffect(() => {
    if (seenValue.current === value) return;
    seenValue.current = value;
    if (value !== debounced) setText(value);
  }, [value, debounced]);
  return [text, setText] as const;
}

/** Search, status, order and group of the clients list; the server filters. */
export function ClientFilters({
  view,
  update,
}: {
  view: ClientListView;
  update: (changes: Partial<ClientListView>, replace?: boolean) => void;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useAddressText(view.search, (text, replace) => update({ search: text }, replace));
  const [group, setGroup] = useAddressText(view.group, (text, replace) => update({ group: text }, replace));
  return (
    <Group mb="md" gap="sm" wrap="wrap">
      <TextInput
        placeholder={t('clients.searchPlaceholder')}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        aria-label={t('common.search')}
        maxLength={128}
        style={{ flex: '1 1 220px' }}
        data-testid="client-search"
      />
      <Select
        placeholder={t('clients.anyStatus')}
        data={STATUSES.map((value) => ({ value, label: t(`clients.status.${value}`) }))}
        value={view.status}
        onChange={(value) => update({ status: value as Status | null })}
        clearable
        aria-label={t('clients.statusLabel')}
        w={160}
      />
      <Select
        data={SORTS.map((value) => ({ value, label: t(`clients.sort.${value}`) }))}
        value={view.sort}
        onChange={(value) => value && update({ sort: value as Sort })}
        allowDeselect={false}
        aria-label={t('clients.sortLabel')}
        w={170}
      />
      <TextInput
        placeholder={t('clients.group')}
        value={group}
        onChange={(e) => setGroup(e.currentTarget.value)}
        aria-label={t('clients.group')}
        maxLength={64}
        w={160}
      />
    </Group>
  );
}
