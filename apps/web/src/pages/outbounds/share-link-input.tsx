import { Button, Group, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, must, type Schemas } from '../../api.js';
import { FormError } from '../../components/form-errors.js';

export type ParsedOutbound = Schemas['ParsedOutboundDto'];

/** A new hop from a share link or WireGuard file: POST /api/outbounds/parse, its body into the form. */
export function ShareLinkInput({ onParsed }: { onParsed: (parsed: ParsedOutbound) => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const parse = useMutation({
    mutationFn: () => must(api.POST('/api/outbounds/parse', { body: { text } })),
    onSuccess: onParsed,
  });
  return (
    <>
      <Textarea
        label={t('hopTools.link')}
        description={t('hopTools.linkHelp')}
        autosize
        minRows={1}
        maxRows={8}
        dir="ltr"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        data-testid="share-link"
      />
      <Group justify="space-between" wrap="nowrap">
        <FormError error={parse.error} fields={[]} />
        <Button
          size="xs"
          variant="light"
          onClick={() => parse.mutate()}
          loading={parse.isPending}
          disabled={!text.trim()}
          data-testid="parse-link"
        >
          {t('hopTools.parse')}
        </Button>
      </Group>
      {parse.data && parse.data.ignored.length > 0 && (
        <Text size="xs" c="dimmed" data-testid="parse-ignored">
          {t('hopTools.ignored', { list: parse.data.ignored.join(', ') })}
        </Text>
      )}
    </>
  );
}
