import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    pool: 'forks',
    // Test files share a worker's loaded modules: importing the app once per worker instead of once per file
    // halves the suite's CPU time. Each file still starts its own servers over its own databases.
    isolate: false,
    // Two workers on two cores: a file waiting on Git, a child svc or PostgreSQL leaves the other core busy.
    maxWorkers: 2,
    globalSetup: ['src/testing/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
