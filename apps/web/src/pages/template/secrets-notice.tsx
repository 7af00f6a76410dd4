import { Alert, Button, CopyButton, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCopy, IconEye, IconEyeOff, IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * Says the template's secrets are hidden (private keys and passwords, as the Outbounds form keeps
 * them write-only), and reveals or copies them only on demand, warning what that exposes.
 */
export function SecretsNotice({
  secrets,
  revealed,
  onReveal,
  fullText,
}: {
  secrets: number;
  revealed: boolean;
  onReveal: (reveal: boolean) => void;
  /** The template with its secrets, what "Copy with secrets" copies. */
  fullText: string;
}) {
  const { t } = useTranslation();
  if (secrets === 0) return null;
  return (
    <Alert
      color={revealed ? 'red' : 'gray'}
      icon={revealed ? <IconEye size={18} /> : <IconLock size={18} />}
      mb="md"
      data-testid="template-secrets"
      data-revealed={revealed}
    >
      <Text size="sm" mb="xs">
        {revealed ? t('template.secretsShown', { count: secrets }) : t('template.secretsHidden', { count: secrets })}
      </Text>
      <Group gap="xs">
        <Button
          size="xs"
          variant={revealed ? 'filled' : 'light'}
          color={revealed ? 'red' : undefined}
          leftSection={revealed ? <IconEyeOff size={14} /> : <IconEye size={14} />}
          onClick={() => onReveal(!revealed)}
          data-testid="reveal-secrets"
        >
          {revealed ? t('template.hideSecrets') : t('template.revealSecrets')}
        </Button>
        <CopyButton value={fullText}>
          {({ copy }) => (
            <Button
              size="xs"
              variant="default"
              leftSection={<IconCopy size={14} />}
              onClick={() => {
                copy();
                notifications.show({ message: t('template.copiedSecrets'), color: 'orange' });
              }}
              data-testid="copy-with-secrets"
            >
              {t('template.copyWithSecrets')}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Alert>
  );
}
