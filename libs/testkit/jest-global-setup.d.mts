/** Migrates the template database that createTestDatabase copies (see jest-global-setup.mjs). */
export default function globalSetup(): Promise<void>;
