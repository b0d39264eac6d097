/**
 * Headless Chromium for the page's tests: Debian's `chromium` (`.ci/run` installs it when it is
 * missing) driven by playwright-core, which downloads no browser of its own. The flags keep
 * Chromium off the network it would otherwise call on its own (updates, sync, field trials,
 * QUIC): the machines' closed network refuses those connections, and a test must not wait on them.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's path; `CHROMIUM_PATH` names another build. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
