/**
 * Browser end-to-end tests: Debian's Chromium (/usr/bin/chromium) drives the web host
 * (src/host), which serves the built renderer (out/renderer) and an in-process sandbox.
 * No webServer: each test gets its own host on a free port and a fresh data folder
 * (e2e/fixtures.ts), so two files run at once. Run after `electron-vite build` (npm test does).
 */
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

export const CHROMIUM = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // each test has its own host, port and data folder (e2e/fixtures.ts): two files at once keep
  // both cores of a 2-core machine busy; all 67 tests passed so at load 11-14
  workers: 2,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? 'test-results/playwright.json' }]],
  use: {
    headless: true,
    viewport: { width: 1400, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: hasChromium ? CHROMIUM : undefined,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
