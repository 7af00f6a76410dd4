import { Code, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Copy, formatDate } from '../../components/common.js';
import { Modal } from '../../components/layers.js';
import type { Enrolment } from './types.js';

/** A node's enrolment command, with a copy button and when it expires. */
export function EnrolmentModal({ enrolment, onClose }: { enrolment: Enrolment; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Modal opened onClose={onClose} title={t('nodes.enrolCommand', { name: enrolment.name })} size="lg">
      <Stack>
        <Text size="sm">
          {t('nodes.enrolHelp', { expires: formatDate(enrolment.enrolment.expiresAt, i18n.language) })}
        </Text>
        <Code block dir="ltr" data-testid="enrol-command">
          {enrolment.enrolment.command}
        </Code>
        <Group justify="flex-end">
          <Copy value={enrolment.enrolment.command} label={t('common.copy')} />
        </Group>
      </Stack>
    </Modal>
  );
}
