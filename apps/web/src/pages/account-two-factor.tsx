import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Image,
  List,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../api.js';
import { queryKeys, useTotpStatus } from '../api/queries.js';
import { Copy } from '../components/common.js';
import { FormError, useFieldErrors } from '../components/form-errors.js';

/**
 * Two-factor sign-in on the Account page: turn it on (a QR code and the secret to type, then a
 * code from the app), which shows the recovery codes once; or turn it off with a code.
 */
export function TwoFactorCard() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const status = useTotpStatus();
  const [started, setStarted] = useState<Schemas['TotpStartedDto'] | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  // Turning 2FA on changes how one signs in: the panel asks for the current password.
  const [password, setPassword] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.totp });
  const start = useMutation({
    mutationFn: () => must(api.POST('/api/auth/totp/start', { body: { password } })),
    onSuccess: (answer) => {
      setStarted(answer);
      setCode('');
      setPassword('');
    },
  });
  const confirm = useMutation({
    mutationFn: () => must(api.POST('/api/auth/totp/confirm', { body: { code: code.trim() } })),
    onSuccess: (answer) => {
      setRecoveryCodes(answer.recoveryCodes);
      setStarted(null);
      setCode('');
      refresh();
    },
  });
  const disable = useMutation({
    mutationFn: () => must(api.POST('/api/auth/totp/disable', { body: { code: code.trim() } })),
    onSuccess: () => {
      setCode('');
      refresh();
    },
  });
  const pending = started ? confirm : disable;
  const errors = useFieldErrors(pending.error, { code });
  const startErrors = useFieldErrors(start.error, { password });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    pending.mutate();
  };
  const enabled = status.data?.enabled ?? false;
  const codeInput = (
    <TextInput
      label={t('twoFactor.code')}
      autoComplete="one-time-code"
      dir="ltr"
      value={code}
      onChange={(e) => setCode(e.currentTarget.value)}
      error={errors.of('code')}
      data-testid="totp-code"
    />
  );
  return (
    <Card withBorder maw={420} mt="lg" data-testid="two-factor">
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h4">
            {t('twoFactor.title')}
          </Title>
          {status.data && (
            <Badge color={enabled ? 'teal' : 'gray'} data-testid="two-factor-state">
              {enabled ? t('twoFactor.on') : t('twoFactor.off')}
            </Badge>
          )}
        </Group>
        {recoveryCodes && <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />}
        {!recoveryCodes && !enabled && !started && (
          <>
            <Text size="sm">{t('twoFactor.explain')}</Text>
            <Stack
              component="form"
              gap="sm"
              onSubmit={(event: FormEvent) => {
                event.preventDefault();
                start.mutate();
              }}
            >
              <PasswordInput
                label={t('twoFactor.password')}
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
                error={startErrors.of('password')}
                data-testid="totp-password"
              />
              <FormError error={start.error} fields={['password']} />
              <Group justify="flex-end">
                <Button type="submit" loading={start.isPending} data-testid="totp-start">
                  {t('twoFactor.turnOn')}
                </Button>
              </Group>
            </Stack>
          </>
        )}
        {!recoveryCodes && started && (
          <Stack component="form" onSubmit={submit} gap="sm">
            <Text size="sm">{t('twoFactor.scan')}</Text>
            <QrCode uri={started.uri} />
            <Text size="sm">{t('twoFactor.orType')}</Text>
            <Group gap="xs" wrap="nowrap">
              <Code dir="ltr" style={{ wordBreak: 'break-all' }} data-testid="totp-secret">
                {started.secret}
              </Code>
              <Copy value={started.secret} />
            </Group>
            {codeInput}
            <FormError error={confirm.error} fields={['code']} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setStarted(null)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={confirm.isPending} data-testid="totp-confirm">
                {t('twoFactor.confirm')}
              </Button>
            </Group>
          </Stack>
        )}
        {!recoveryCodes && enabled && (
          <Stack component="form" onSubmit={submit} gap="sm">
            <Text size="sm" data-testid="recovery-codes-left">
              {t('twoFactor.codesLeft', {
                count: status.data!.recoveryCodesLeft,
                number: new Intl.NumberFormat(i18n.language).format(status.data!.recoveryCodesLeft),
              })}
            </Text>
            {codeInput}
            <Text size="xs" c="dimmed">
              {t('twoFactor.disableHelp')}
            </Text>
            <FormError error={disable.error} fields={['code']} />
            <Group justify="flex-end">
              <Button type="submit" color="red" variant="light" loading={disable.isPending} data-testid="totp-disable">
                {t('twoFactor.turnOff')}
              </Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Card>
  );
}

/** The otpauth URI as a QR code for the authenticator app to scan. */
function QrCode({ uri }: { uri: string }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 200 }).then(setUrl, () => setUrl(undefined));
  }, [uri]);
  return url ? <Image src={url} alt={t('twoFactor.qrAlt')} w={200} h={200} data-testid="totp-qr" /> : null;
}

/** Shown once, right after turning 2FA on: the panel keeps only their hashes. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert color="teal" title={t('twoFactor.recoveryTitle')}>
      <Text size="sm" mb="xs">
        {t('twoFactor.recoveryHelp')}
      </Text>
      <List spacing={2} size="sm" dir="ltr" data-testid="recovery-codes" listStyleType="none">
        {codes.map((recovery) => (
          <List.Item key={recovery}>
            <Code>{recovery}</Code>
          </List.Item>
        ))}
      </List>
      <Group justify="space-between" mt="sm">
        <Copy value={codes.join('\n')} label={t('twoFactor.copyCodes')} />
        <Button size="xs" onClick={onDone} data-testid="recovery-codes-done">
          {t('twoFactor.saved')}
        </Button>
      </Group>
    </Alert>
  );
}
