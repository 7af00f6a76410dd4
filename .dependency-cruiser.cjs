/**
 * The import-cycle check `npm test` runs (`npm run depcheck`). Domain folders of the controller
 * depend on each other one way (docs/architecture.md); a cycle between two folders fails, even
 * when no single file imports itself back (scope: 'folder' aggregates every file's imports to
 * its folder, and a folder's to its parents).
 *
 * Composition roots import every domain by design and are left out: app.module.ts, panel.ts,
 * main.ts, cli/, and the entity list with what loads it (database/entities.ts, orm.ts,
 * create-migration.ts). They are not cruised at all, so an import of one from a domain would
 * go unseen: a domain must never import them (none does; Nest wires modules the other way).
 */
const SOURCE = '^apps/controller/src/';
const COMPOSITION_ROOTS = [
  `${SOURCE}(app\\.module|panel|main)\\.ts$`,
  `${SOURCE}cli/`,
  `${SOURCE}database/(entities|orm|create-migration)\\.ts$`,
  `${SOURCE}database/migrations/`,
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
  ],
  options: {
    includeOnly: SOURCE,
    exclude: { path: ['\\.spec\\.ts$', ...COMPOSITION_ROOTS] },
    // Type-only imports count: they couple folders as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      conditionNames: ['warren-source', 'import', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
