// ESLint (flat config): typescript-eslint's recommended rules, import order, function length.
// Formatting belongs to Prettier (.prettierrc.json): eslint-config-prettier turns off the rules it would fight.
// Unused exports are found by knip (knip.jsonc), which follows the imports of tests, bench/ and scripts/.
// The rules are the non-type-checked sets: the type-aware ones would double the time of a lint for little more.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/', 'node_modules/', 'reports/', 'test/fixtures/', 'docs/reference/'],
  },
  {
    files: ['**/*.{ts,js,mjs}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // Import order, fixed by `npm run format`: node: built-ins and packages, then relative paths, each sorted.
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // `const { secret: _, ...rest } = x` is how the code drops a field from a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Off: the redaction, the reports' escaping and the tests of terminal output match control characters
      // (NUL, C0, ESC) on purpose; that is what those expressions are for.
      'no-control-regex': 'off',
      // A class of combining marks written as escapes (ZWJ, skin-tone modifiers) is meant one code point each.
      'no-misleading-character-class': ['error', { allowEscape: true }],
      // A failed best-effort read (a bench's /proc sample) is skipped on purpose.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Tests read the JSON the tool writes (summary.json, run.json, events) and assert on its fields: typing each
    // file's shape in every test would be a rewrite of the suite for no behaviour.
    files: ['src/**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The CLI's command table holds yargs builders of different option types: `any` is where they meet
    // (command() checks each entry's builder against its handler where the entry is made).
    files: ['src/cli/main.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The house rule, as /work/tools/long-functions.mjs counts it: from a function's first line to its last,
    // nested functions, blank lines and comments included. Tests are lists of cases: a describe() is not split.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  prettier,
  {
    // Line width, after eslint-config-prettier (which turns max-len off): Prettier wraps code at 120 but cannot break
    // a string, a template literal or a comment. Comments hold 120 here; a line holding a long message string is not
    // counted, as Prettier leaves it whole.
    files: ['**/*.{ts,js,mjs}'],
    rules: {
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
    },
  },
);
