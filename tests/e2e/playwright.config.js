// Playwright e2e suite: real Debian Chromium (/usr/bin/chromium, never a downloaded browser) against the
// built dist/ served on 127.0.0.1. Run through scripts/test_e2e.sh.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.js',
  workers: 1, // 2 cores: one browser at a time keeps timings and memory sane
  fullyParallel: false,
  timeout: 15 * 60 * 1000, // linn through Pyodide + wasm takes minutes on this machine
  expect: { timeout: 60 * 1000 },
  // list for the log; json keeps each test's duration (test-results/e2e-report.json) to find where suite time goes
  reporter: [['list'], ['json', { outputFile: '../../test-results/e2e-report.json' }]],
  outputDir: '../../test-results/e2e',
  forbidOnly: true,
});
