import { defineConfig } from 'vitest/config';
import { TEST_SECRETS_KEY } from './test/helpers/secrets-key.ts';

// Every test file runs in its own forked process and gets its own databases, cloned from one migrated
// template made by test/helpers/global-setup.ts (tests never touch data they did not make).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // 2 cores here and in CI; files run in parallel, tests inside a file run in order.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    // Inherited by the servers and CLIs tests start (production requires SECRETS_KEY).
    env: { SECRETS_KEY: TEST_SECRETS_KEY },
  },
});
