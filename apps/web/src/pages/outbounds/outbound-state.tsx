import { Badge, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDate, Ltr } from '../../components/common.js';
import type { Outbound } from './types.js';

/**
 * Whether the node runs the hop (its local redirector, as the agent last reported) and, while it
 * does, whether its last check (periodic or asked for) passed: `down` when the server behind it
 * did not answer; `offline` when the node's agent is not linked (nothing it reported holds).
 */
export function OutboundState({ outbound }: { outbound: Outbound }) {
  const { t } = useTranslation();
  const color = {
    up: 'green',
    down: 'red',
    failed: 'red',
    disabled: 'gray',
    unknown: 'yellow',
    offline: 'red',
  }[outbound.state];
  return (
    <Tooltip label={t(`outbounds.stateHelp.${outbound.state}`)} multiline w={260} withArrow>
      <Badge color={color} variant="light" miw="max-content" data-testid="outbound-state">
        {t(`outbounds.state.${outbound.state}`)}
      </Badge>
    </Tooltip>
  );
}

/** The last check's verdict (reachable or not), so a running hop whose server refused is not read as healthy. */
function CheckResult({ outbound }: { outbound: Outbound }) {
  const { t } = useTranslation();
  const failed = outbound.lastError !== null;
  return (
    <Badge color={failed ? 'red' : 'green'} variant="outline" size="sm" miw="max-content" data-testid="check-verdict">
      {failed ? t('outbounds.checkFailed') : t('outbounds.checkPassed')}
    </Badge>
  );
}

/** The last check: its verdict, when, the latency, the egress address and the error, or a dash before any. */
export function LastCheck({ outbound }: { outbound: Outbound }) {
  const { t, i18n } = useTranslation();
  return outbound.lastCheckAt ? (
    <Text size="xs" component="div">
      <CheckResult outbound={outbound} /> {formatDate(outbound.lastCheckAt, i18n.language)}
      {outbound.latencyMs !== null && <> · {t('common.ms', { value: outbound.latencyMs })}</>}
      {outbound.egressIp && (
        <>
          {' '}
          · <Ltr>{outbound.egressIp}</Ltr>
        </>
      )}
      {outbound.lastError && (
        <Text span c="red" size="xs">
          {' '}
          · {outbound.lastError}
        </Text>
      )}
    </Text>
  ) : (
    '—'
  );
}
