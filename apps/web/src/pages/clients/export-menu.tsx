import { Button, Menu } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, ApiError, saveFile } from '../../api.js';
import { notifyFailure } from '../../components/common.js';

/** The name the panel gives the file (Content-Disposition), or one of the same form. */
function filenameOf(response: Response, format: 'json' | 'csv'): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
  return match?.[1] ?? `warren-clients.${format}`;
}

/** Every client to a file (GET /api/clients/export): JSON that imports back, or CSV for a spreadsheet. */
export function ExportMenu() {
  const { t } = useTranslation();
  const download = useMutation({
    mutationFn: async (format: 'json' | 'csv') => {
      const answer = await api.GET('/api/clients/export', { params: { query: { format } }, parseAs: 'blob' });
      if (!answer.response.ok) throw new ApiError(answer.response.status, answer.response.statusText, '');
      saveFile(answer.data as unknown as Blob, filenameOf(answer.response, format));
    },
    onError: notifyFailure,
  });
  return (
    <Menu>
      <Menu.Target>
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          loading={download.isPending}
          data-testid="clients-export"
        >
          {t('clientTransfer.export')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => download.mutate('json')} data-testid="clients-export-json">
          {t('clientTransfer.exportJson')}
        </Menu.Item>
        <Menu.Item onClick={() => download.mutate('csv')} data-testid="clients-export-csv">
          {t('clientTransfer.exportCsv')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
