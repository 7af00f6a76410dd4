/**
 * The import-cycle check `npm test` runs (`npm run depcheck`). Domain folders of the controller
 * depend on each other one way (docs/architecture.md); a cycle between two folders fails, even
 * when no single file imports itself back (scope: 'folder' aggregates every file's imports to
 * its folder, and a folder's to its parents).
 *
 * Composition roots import every domain by design: app.module.ts, panel.ts, main.ts, cli/, the
 * entity list with what loads it (database/entities.ts, orm.ts, create-migration.ts) and the
 * offline OpenAPI writer (docs/offline-document.ts and what uses it). Their own imports are not
 * followed (they would close every folder into one cycle), and a second rule forbids a domain to
 * import one, so no cycle can hide behind them.
 */
const SOURCE = '^apps/controller/src/';
const COMPOSITION_ROOTS = [
  `${SOURCE}(app\\.module|panel|main|audit-readers)\\.ts$`,
  `${SOURCE}cli/`,
  `${SOURCE}database/(entities|orm|create-migration)\\.ts$`,
  `${SOURCE}database/migrations/`,
  `${SOURCE}docs/(offline-document|write-api-client|api-client-files)\\.ts$`,
];

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Dependencies between the domain folders of apps/controller/src run one way (docs/architecture.md).',
      scope: 'folder',
      from: { path: SOURCE },
      to: { path: SOURCE, circular: true },
    },
    {
      name: 'no-composition-root-import',
      severity: 'error',
      comment: 'Composition roots wire the domains together; a domain importing one would hide a cycle from the check above.',
      from: { path: SOURCE, pathNot: COMPOSITION_ROOTS },
      to: { path: COMPOSITION_ROOTS },
    },
  ],
  options: {
    includeOnly: SOURCE,
    exclude: { path: ['\\.spec\\.ts$'] },
    // Roots are seen as import targets (for the rule above) but their own imports are not followed.
    doNotFollow: { path: COMPOSITION_ROOTS },
    // Type-only imports count: they couple folders as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      conditionNames: ['warren-source', 'import', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
