import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
          patterns: ['@tidemark/*/src/*'],
          paths: ['@tidemark/gateway', '@tidemark/billing', '@tidemark/local'].map((name) => ({
            name,
            message: 'services and libs do not import services; talk over gRPC or NATS',
          })),
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
