import { ActionIcon, Badge, Button, Text } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconRadar } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton, EditAndDelete, formatBytes, formatDate, Ltr, Sizes } from '../../components/common.js';
import { ListTable } from '../../components/list-table.js';
import { LastCheck, OutboundState } from './outbound-state.js';
import type { Outbound } from './types.js';

/** The node's outbounds, one row each, with check, edit and delete for those who manage. */
export function OutboundsTable({
  outbounds,
  canManage,
  checking,
  onCheck,
  onEdit,
  onDelete,
  onMove,
  onResetTraffic,
}: {
  outbounds: Outbound[] | undefined;
  canManage: boolean;
  /** The id of the outbound being checked, whose button spins. */
  checking: string | undefined;
  onCheck: (outbound: Outbound) => void;
  onEdit: (outbound: Outbound) => void;
  onDelete: (outbound: Outbound) => void;
  /** Moves a hop one place up (-1) or down (1) among the node's hops (the built-ins stay first). */
  onMove: (outbound: Outbound, by: -1 | 1) => void;
  /** Zeroes a hop's traffic counters (asked first). */
  onResetTraffic: (outbound: Outbound) => void;
}) {
  const hops = (outbounds ?? []).filter((outbound) => !outbound.builtin);
  const { t, i18n } = useTranslation();
  return (
    <ListTable
      rows={outbounds}
      rowKey={(outbound) => outbound.id}
      minWidth={720}
      cards
      testId="outbounds-table"
      rowProps={(outbound) => ({ 'data-testid': 'outbound-row', 'data-tag': outbound.tag })}
      columns={[
        {
          header: t('outbounds.tag'),
          naming: true,
          cell: (outbound) => (
            <>
              {outbound.tag}
              {outbound.subscriptionId && (
                <Badge ms="xs" size="xs" variant="light" data-testid="from-subscription">
                  {t('outboundSubs.fromSubscription')}
                </Badge>
              )}
              {outbound.subscriptionGone && (
                <Badge ms="xs" size="xs" variant="light" color="orange" title={t('outboundSubs.goneHelp')}>
                  {t('outboundSubs.gone')}
                </Badge>
              )}
            </>
          ),
        },
        { header: t('outbounds.kind'), cell: (outbound) => t(`outbounds.kinds.${outbound.kind}`) },
        {
          header: t('hosts.address'),
          cell: (outbound) => (outbound.address ? <Ltr>{outbound.address}</Ltr> : '—'),
        },
        {
          header: t('outbounds.onNode'),
          cell: (outbound) => (
            <>
              <OutboundState outbound={outbound} />
              {outbound.stateError && (
                <Text size="xs" c="red">
                  {outbound.stateError}
                </Text>
              )}
            </>
          ),
        },
        {
          header: t('outbounds.lastCheck'),
          cell: (outbound) => <LastCheck outbound={outbound} />,
        },
        {
          header: t('hopTools.traffic'),
          // The built-ins carry no counters of their own (docs/outbounds.md, "Traffic").
          cell: (outbound) =>
            outbound.builtin ? (
              '—'
            ) : (
              <span
                title={t('hopTools.trafficHelp', { since: formatDate(outbound.traffic.since, i18n.language) })}
                data-testid="outbound-traffic"
              >
                <Sizes>{`↑ ${formatBytes(outbound.traffic.upBytes)} · ↓ ${formatBytes(outbound.traffic.downBytes)}`}</Sizes>
              </span>
            ),
        },
      ]}
      actions={(outbound) => (
        <>
          {outbound.kind !== 'blocked' && canManage && (
            <Button
              size="xs"
              variant="light"
              leftSection={<IconRadar size={14} />}
              loading={checking === outbound.id}
              onClick={() => onCheck(outbound)}
              data-testid="check-outbound"
            >
              {t('outbounds.check')}
            </Button>
          )}
          {!outbound.builtin && canManage && (
            <>
              <ActionIcon
                variant="subtle"
                aria-label={t('hopTools.moveUp')}
                disabled={hops[0]?.id === outbound.id}
                onClick={() => onMove(outbound, -1)}
                data-testid="move-up"
              >
                <IconArrowUp size={16} />
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                aria-label={t('hopTools.moveDown')}
                disabled={hops.at(-1)?.id === outbound.id}
                onClick={() => onMove(outbound, 1)}
                data-testid="move-down"
              >
                <IconArrowDown size={16} />
              </ActionIcon>
            </>
          )}
          {!outbound.builtin && canManage && (
            <ConfirmButton
              message={t('hopTools.confirmResetTraffic', { tag: outbound.tag })}
              onConfirm={() => onResetTraffic(outbound)}
              data-testid="reset-outbound-traffic"
            >
              {t('hopTools.resetTraffic')}
            </ConfirmButton>
          )}
          {!outbound.builtin && canManage && (
            <EditAndDelete
              onEdit={() => onEdit(outbound)}
              confirmMessage={t('outbounds.confirmDelete', { tag: outbound.tag })}
              onDelete={() => onDelete(outbound)}
            />
          )}
          {outbound.builtin && (
            <Badge variant="outline" size="xs">
              {t('outbounds.builtin')}
            </Badge>
          )}
        </>
      )}
    />
  );
}
