import { Text } from '@mantine/core';
import { formatRate, Sizes } from './common.js';

// Apart from the usage chart: the clients list shows it on every row, and the chart (its range
// picker, react-i18next's <Trans>) need not come with the list's first load.

/** A current rate, down and up ("↓ 1.2 MiB/s ↑ 40.0 KiB/s"); nothing while both are 0. */
export function CurrentRate({ downRate, upRate }: { downRate: number; upRate: number }) {
  if (downRate === 0 && upRate === 0) return null;
  return (
    <Text size="xs" c="dimmed" component="span" data-testid="current-rate">
      <Sizes>{`↓ ${formatRate(downRate)} ↑ ${formatRate(upRate)}`}</Sizes>
    </Text>
  );
}
