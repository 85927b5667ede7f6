// One jest run for the whole workspace. Sources are ESM TypeScript, transpiled by swc (type
// checking is `pnpm typecheck`'s job); jest runs in native ESM mode (--experimental-vm-modules).
import { availableParallelism } from 'node:os';

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{libs,services}/*/test/**/*.spec.ts', '<rootDir>/test/e2e/**/*.spec.ts'],
  globalSetup: '<rootDir>/libs/testkit/jest-global-setup.mjs',
  globalTeardown: '<rootDir>/libs/testkit/jest-global-teardown.mjs',
  testTimeout: 60_000,
  // Each integration file owns a database, a NATS prefix and a Redis prefix, so files run in
  // parallel; two workers fit the 2-core CI machine. Never fewer than two: with one, jest runs
  // every file in its own process, whose heap ran out (4 GB) after 128 of 166 files on 2 cores.
  maxWorkers: process.env.CI ? 2 : Math.max(2, Math.floor(availableParallelism() / 2)),
};
