import { Group, Pagination, Select, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { PHONE_QUERY } from './list-table.js';
import { localDigits } from '../format.js';

/**
 * A list's pages: every page reachable by number (from the total), first and last, the page size
 * (25/50/100) and what the whole list counts. On a phone fewer numbers show, so it fits the width.
 */
export function Pager({
  page,
  perPage,
  total,
  sizes,
  summary,
  onPage,
  onPerPage,
}: {
  page: number;
  perPage: number;
  total: number;
  sizes: readonly number[];
  summary: string;
  onPage: (page: number) => void;
  onPerPage: (perPage: number) => void;
}) {
  const { t } = useTranslation();
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <Stack align="center" mt="md" gap="xs" data-testid="pager">
      <Pagination
        total={pages}
        value={Math.min(page, pages)}
        onChange={onPage}
        withEdges
        siblings={phone ? 0 : 1}
        size={phone ? 'sm' : 'md'}
        gap={phone ? 4 : 8}
        getControlProps={(control) => ({ 'aria-label': t(`list.${control}`) })}
        getItemProps={(number) => ({ children: localDigits(number) })}
      />
      <Group gap="sm" justify="center">
        <Text size="xs" c="dimmed">
          {summary}
        </Text>
        <Select
          size="xs"
          w={80}
          data={sizes.map((size) => ({ value: String(size), label: localDigits(size) }))}
          value={String(perPage)}
          onChange={(value) => value && onPerPage(Number(value))}
          allowDeselect={false}
          aria-label={t('list.perPage')}
          data-testid="per-page"
        />
      </Group>
    </Stack>
  );
}
