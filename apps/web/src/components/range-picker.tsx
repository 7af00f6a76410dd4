import { Chip, Group } from '@mantine/core';

/**
 * A choice of ranges ("1h", "24h", "۹۰ روز", …) that wraps onto a second line on a narrow screen:
 * every range stays visible and whole on a phone (a segmented control would run past the edge).
 */
export function RangePicker<T extends string>({
  ranges,
  label,
  value,
  onChange,
  testId,
}: {
  ranges: { value: T; label: string }[];
  /** What the choice is, for screen readers ("Range"). */
  label: string;
  value: T;
  onChange: (value: T) => void;
  testId: string;
}) {
  return (
    <Group gap={4} wrap="wrap" maw="100%" role="radiogroup" aria-label={label} data-testid={testId}>
      <Chip.Group multiple={false} value={value} onChange={(next) => onChange(next as T)}>
        {ranges.map((range) => (
          <Chip
            key={range.value}
            value={range.value}
            size="xs"
            radius="sm"
            // No check mark: the filled chip says which is picked, and its text stays centred.
            styles={{ iconWrapper: { display: 'none' }, label: { paddingInline: 'var(--chip-padding)' } }}
          >
            {range.label}
          </Chip>
        ))}
      </Chip.Group>
    </Group>
  );
}
