// Starts a real control server serving the built studio, and a real headless Chromium.
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  createControlServer,
  type ControlAgents,
  type ControlServer,
  type ControlServerOptions,
} from '@trust/workspace';

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

/** The built studio (`pnpm turbo run build` builds it before the tests). Fails loudly if missing. */
export function studioDist(): string {
  const pkg = createRequire(import.meta.url).resolve('@trust/studio/package.json');
  const dist = join(dirname(pkg), 'dist');
  if (!existsSync(join(dist, 'index.html')))
    throw new Error(`the studio is not built (${dist}/index.html missing); run the build first`);
  return dist;
}

export function indexHtml(): string {
  return readFileSync(join(studioDist(), 'index.html'), 'utf8');
}

export async function startStudio(
  agents: ControlAgents,
  extra: Partial<ControlServerOptions> = {},
): Promise<ControlServer> {
  const dir = mkdtempSync(join(tmpdir(), 'studio-'));
  return createControlServer({ agents, tokenFile: join(dir, 'control-token'), studioDir: studioDist(), ...extra });
}

/** Launches the system Chromium (fails if it is missing: the bootstrap installs it). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A page that records console errors and never talks to anything but loopback. */
export async function openPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Belt and braces next to the CSP: the browser may only reach loopback.
  await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/])/, (route) => route.abort());
  return context.newPage();
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `studio-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
