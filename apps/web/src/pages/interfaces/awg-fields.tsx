import { Button, Fieldset, Group, SimpleGrid, Text } from '@mantine/core';
import { NumberInput } from '../../components/number-input.js';
import { useTranslation } from 'react-i18next';
import type { FieldErrors } from '../../components/form-errors.js';
import { AMNEZIA_FIELDS } from '../../../../../libs/contracts/amnezia.js';
import { generatedAwg, type AwgValues } from './interface-values.js';

/** The names AmneziaWG's own configs use (Jc, Jmin, H1...): what an operator compares with. */
const LABELS = { jc: 'Jc', jmin: 'Jmin', jmax: 'Jmax', s1: 'S1', s2: 'S2', h1: 'H1', h2: 'H2', h3: 'H3', h4: 'H4' };

/**
 * An AmneziaWG interface's parameters: generated for a new one (within the API's bounds), the
 * stored ones when editing. No clamping: a value the API refuses stays as typed, its error under it.
 */
export function AwgFields({
  awg,
  onChange,
  errors,
  editing,
}: {
  awg: AwgValues;
  onChange: (awg: AwgValues) => void;
  errors: FieldErrors;
  editing: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Fieldset legend={t('interfaces.awg')} data-testid="awg-fields" p="sm">
      <Group justify="space-between" mb="xs" wrap="nowrap" align="flex-start">
        <Text size="xs" c="dimmed">
          {t('interfaces.awgHelp')} {editing && t('interfaces.awgChangeHelp')}
        </Text>
        <Button
          size="compact-xs"
          variant="light"
          onClick={() => onChange(generatedAwg())}
          style={{ flexShrink: 0 }}
          data-testid="awg-generate"
        >
          {t('interfaces.awgGenerate')}
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs" verticalSpacing="xs">
        {AMNEZIA_FIELDS.map((field) => (
          <NumberInput
            key={field}
            label={LABELS[field]}
            description={t(`interfaces.awgFields.${field}`)}
            name={`awg.${field}`}
            value={awg[field]}
            onChange={(value) => onChange({ ...awg, [field]: value })}
            allowDecimal={false}
            clampBehavior="none"
            hideControls
            error={errors.of(`awg.${field}`)}
            data-testid={`awg-${field}`}
          />
        ))}
      </SimpleGrid>
    </Fieldset>
  );
}
