// Playwright e2e suite: real Debian Chromium (/usr/bin/chromium, never a downloaded browser) against the
// built dist/ served on 127.0.0.1. Run through scripts/test_e2e.sh.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.js',
  // Two browsers at once on this 2-core machine: one test leaves a core idle while Pyodide boots or Python runs
  // (83 % of both cores busy with one worker, 98 % with two; the suite 26.8 -> 24.3 min, test-time.md 2026-11-28).
  // Tests are spread one by one, not file by file, so a long file (webgl.spec.js) cannot end the run alone.
  workers: 2,
  fullyParallel: true,
  timeout: 15 * 60 * 1000, // linn through Pyodide + wasm takes minutes on this machine
  expect: { timeout: 60 * 1000 },
  // list for the log; json keeps each test's duration (test-results/e2e-report.json) to find where suite time goes
  reporter: [['list'], ['json', { outputFile: '../../test-results/e2e-report.json' }]],
  outputDir: '../../test-results/e2e',
  forbidOnly: true,
});
