import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { StateBadge } from '../../components/badges.js';
import { formatAgo, formatDate } from '../../components/common.js';

/**
 * Whether a client or device is online (a handshake within the API's online window, `onlineNow`)
 * and, when not, how long ago its last handshake was ("never" without one); the exact time on hover.
 */
export function OnlineState({ onlineNow, lastHandshake }: { onlineNow: boolean; lastHandshake: string | null }) {
  const { t, i18n } = useTranslation();
  const exact = lastHandshake ? formatDate(lastHandshake, i18n.language) : undefined;
  if (onlineNow)
    return (
      <span title={exact} data-online="true">
        <StateBadge color="green">{t('clients.online')}</StateBadge>
      </span>
    );
  return (
    <Text size="sm" c="dimmed" component="span" title={exact} data-online="false">
      {lastHandshake ? formatAgo(lastHandshake, i18n.language) : t('clients.neverConnected')}
    </Text>
  );
}
