import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // a worker process runs file after file with the modules it has loaded: importing the service's
    // code again for each of 200 files took about 300 s of the suite's time. Each file makes its own
    // servers, databases and stores; nothing in a module holds one file's state for the next.
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
