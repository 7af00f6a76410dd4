import { Alert, Code, List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PreviewProblem } from '../template-preview.js';

/** What would make an import fail, each with the field the API would name, before anything is sent. */
export function PreviewProblems({ problems }: { problems: PreviewProblem[] }) {
  const { t } = useTranslation();
  if (problems.length === 0) return null;
  return (
    <Alert color="red" title={t('template.wouldFail')} data-testid="preview-problems">
      <Text size="sm" mb="xs">
        {t('template.wouldFailHelp')}
      </Text>
      <List size="sm" spacing={4}>
        {problems.map((problem) => (
          <List.Item key={problem.path} data-testid="preview-problem">
            {problem.kind === 'unknownNode'
              ? t('template.problem.unknownNode', { node: problem.node })
              : t(`template.problem.${problem.kind}`, { node: problem.node, name: problem.name })}{' '}
            <Code dir="ltr">{problem.path}</Code>
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
