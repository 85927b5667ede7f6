import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { readdirSync } from 'node:fs';

const SERVICES = readdirSync(new URL('./services/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/generated/**',
      '.tidemark/**',
      'helm/**',
      'services/web/dist/**',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A lib is used through its entry point only.
      'no-restricted-imports': ['error', { patterns: ['@tidemark/*/src/*', '@tidemark/*/src/**'] }],
    },
  },
  {
    // Services never import each other; only the local launcher composes them.
    files: ['services/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['@tidemark/*/src/*', '@tidemark/*/src/**', '**/services/*/src/**'],
          paths: [...SERVICES.map((s) => `@tidemark/${s}`), '@tidemark/local'].map((name) => ({
            name,
            message: 'services and libs do not import services; talk over gRPC or NATS',
          })),
        },
      ],
    },
  },
  {
    // The fleet's tests start services through their entry points, never their insides.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@tidemark/*/src/*', '@tidemark/*/src/**'], message: 'use the package entry point' },
            { group: ['**/services/*/src/**'], message: 'tests reach a service through its entry point or the API' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
