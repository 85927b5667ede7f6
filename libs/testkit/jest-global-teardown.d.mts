/** Drops the run's template database (see jest-global-teardown.mjs). */
export default function globalTeardown(): Promise<void>;
