import { PasswordInput, Select, SimpleGrid, TagsInput, TextInput } from '@mantine/core';
import { NumberInput } from '../../components/number-input.js';
import { useTranslation } from 'react-i18next';
import type { FieldErrors } from '../../components/form-errors.js';
import type { OutboundValues } from './outbound-values.js';
import { METHODS, type Outbound } from './types.js';

interface KindFieldsProps {
  values: OutboundValues;
  set: (key: keyof OutboundValues, value: unknown) => void;
  errors: FieldErrors;
  outbound?: Outbound;
}

/** The fields of a socks, http or shadowsocks hop: the credentials (or method and password). */
export function ProxyFields({ values, set, errors, outbound }: KindFieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      {(values.kind === 'socks' || values.kind === 'http') && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('outbounds.username')}
            value={values.username}
            onChange={(e) => set('username', e.currentTarget.value)}
            error={errors.of('username')}
          />
          <PasswordInput
            label={t('outbounds.password')}
            placeholder={outbound?.hasPassword ? t('outbounds.keepPassword') : ''}
            value={values.password}
            onChange={(e) => set('password', e.currentTarget.value)}
            error={errors.of('password')}
          />
        </SimpleGrid>
      )}
      {values.kind === 'shadowsocks' && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('outbounds.method')}
            data={[...METHODS]}
            value={values.method}
            onChange={(method) => method && set('method', method)}
            error={errors.of('method')}
          />
          <PasswordInput
            label={t('outbounds.password')}
            placeholder={outbound?.hasPassword ? t('outbounds.keepPassword') : ''}
            value={values.password}
            onChange={(e) => set('password', e.currentTarget.value)}
            error={errors.of('password')}
          />
        </SimpleGrid>
      )}
    </>
  );
}

/** The fields of a wireguard hop: the peer, the tunnel's address, allowed IPs, MTU and keepalive. */
export function WireguardFields({ values, set, errors }: KindFieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput
        label={t('outbounds.peerPublicKey')}
        value={values.peerPublicKey}
        onChange={(e) => set('peerPublicKey', e.currentTarget.value)}
        error={errors.of('peerPublicKey')}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label={t('outbounds.tunnelAddress')}
          placeholder="10.66.0.2/32"
          value={values.tunnelAddress}
          onChange={(e) => set('tunnelAddress', e.currentTarget.value)}
          error={errors.of('tunnelAddress')}
        />
        <PasswordInput
          label={t('outbounds.presharedKey')}
          value={values.presharedKey}
          onChange={(e) => set('presharedKey', e.currentTarget.value)}
          error={errors.of('presharedKey')}
        />
      </SimpleGrid>
      <TagsInput
        label={t('outbounds.allowedIps')}
        value={values.allowedIps}
        onChange={(value) => set('allowedIps', value)}
        error={errors.of('allowedIps')}
      />
      <SimpleGrid cols={2}>
        <NumberInput label="MTU" value={values.mtu} onChange={(value) => set('mtu', value)} error={errors.of('mtu')} />
        <NumberInput
          label={t('outbounds.keepalive')}
          value={values.keepalive}
          onChange={(value) => set('keepalive', value)}
          error={errors.of('keepalive')}
        />
      </SimpleGrid>
    </>
  );
}
