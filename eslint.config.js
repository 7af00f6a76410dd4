// Lint gate (npm run lint, zero warnings): typescript-eslint with type information for the
// TypeScript sources, the recommended JavaScript rules for the plain .js benches and scripts.
// Formatting is Prettier's job (eslint-config-prettier turns off the rules that overlap).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'libs/api-client/schema.d.ts', 'deploy/', 'apps/controller/src/docs/openapi-metadata.ts'] },
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-control-regex': 'off',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['apps/web/vite.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // TypeScript checks names itself; the rule does not know type-only globals.
      'no-undef': 'off',
      // Refusing control characters is a rule of this code base (profiles, names, notes): the
      // patterns that match them are deliberate.
      'no-control-regex': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read answers of every shape: their HTTP helpers hand back the parsed JSON as any.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The browser-side callbacks of the web bench run in the page (page.evaluate).
    files: ['bench/web.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
