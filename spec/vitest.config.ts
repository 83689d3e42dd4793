import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Prism parses the whole management bundle before its first answer; on a loaded two-core machine that
    // alone can pass vitest's default 5 s.
    testTimeout: 30_000,
  },
});
