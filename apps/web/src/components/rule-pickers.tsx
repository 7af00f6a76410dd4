import { MultiSelect } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQueries } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { clientQuery, useClientList, useInterfaces } from '../api/queries.js';

/** How many matches the client search shows: enough to pick from, never the whole list (there can be 100,000 clients). */
const SEARCH_PAGE = 20;

/** A node's interfaces, picked by name; the values are their ids (what the API takes). */
export function InterfacePicker({
  nodeId,
  label,
  value,
  onChange,
  error,
}: {
  nodeId: string;
  label: string;
  value: string[];
  onChange: (ids: string[]) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const interfaces = useInterfaces();
  const ofNode = (interfaces.data ?? []).filter((entry) => entry.nodeId === nodeId);
  // An id no interface of the node bears (deleted since) still shows, as its id, so it can be removed.
  const unknown = value
    .filter((id) => !ofNode.some((entry) => entry.id === id))
    .map((id) => ({ value: id, label: id }));
  return (
    <MultiSelect
      label={label}
      data={[...ofNode.map((entry) => ({ value: entry.id, label: entry.name })), ...(interfaces.data ? unknown : [])]}
      value={value}
      onChange={onChange}
      error={error}
      searchable
      nothingFoundMessage={t('clients.noInterfaces')}
      data-testid="rule-interfaces"
    />
  );
}

/**
 * Clients picked by name, found by asking the API as one types (GET /api/clients?search=, a page
 * of matches); the chosen ones keep their names, asked one by one (GET /api/clients/{id}) when not
 * among the matches. An id that no client bears any more shows as the id.
 */
export function ClientPicker({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string[];
  onChange: (ids: string[]) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [needle] = useDebouncedValue(search.trim(), 250);
  const matches = useClientList({ ...(needle ? { search: needle } : {}), perPage: SEARCH_PAGE, sort: 'name' });
  const found = useMemo(
    () => new Map((matches.data?.items ?? []).map((client) => [client.id, client.name])),
    [matches.data],
  );
  const missing = value.filter((id) => !found.has(id));
  const chosen = useQueries({
    queries: missing.map(clientQuery),
  });
  const names = new Map(found);
  missing.forEach((id, index) => names.set(id, chosen[index]?.data?.name ?? id));
  const data = [...new Set([...value, ...found.keys()])].map((id) => ({ value: id, label: names.get(id) ?? id }));
  return (
    <MultiSelect
      label={label}
      placeholder={value.length ? undefined : t('routing.searchClients')}
      data={data}
      value={value}
      onChange={onChange}
      error={error}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      // The API already matched the text (name or note): every answer it gave is an option.
      filter={({ options }) => options}
      nothingFoundMessage={matches.isFetching ? t('routing.searching') : t('clients.noMatch')}
      data-testid="rule-clients"
    />
  );
}
