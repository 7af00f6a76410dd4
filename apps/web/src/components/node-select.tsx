import { Select } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNodes } from '../api/queries.js';

/** Chooses the node a per-node page shows (outbounds, routing); the local node first. */
export function NodeSelect({ value, onChange }: { value: string | null; onChange: (id: string) => void }) {
  const { t } = useTranslation();
  const nodes = useNodes();
  useEffect(() => {
    if (!value && nodes.data?.length) onChange((nodes.data.find((node) => node.isLocal) ?? nodes.data[0]!).id);
  }, [value, nodes.data, onChange]);
  return (
    <Select
      aria-label={t('interfaces.node')}
      data={(nodes.data ?? []).map((node) => ({ value: node.id, label: node.name }))}
      value={value}
      onChange={(id) => id && onChange(id)}
      allowDeselect={false}
      w={200}
    />
  );
}
