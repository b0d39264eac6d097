/**
 * @module http/uws-native
 *
 * Loads uWebSockets.js, the native HTTP and WebSocket server, with its server banner off. Two
 * builds are installed (docs/decisions.md, "The platform question"):
 *  - `@btc-vision/uwebsockets.js` 20.57.0: the official v20.57.0 binaries repackaged on npm
 *    (upstream publishes only on GitHub), for Node 20, 22, 24 and 25 — but built against glibc
 *    2.38 (Debian 13, Ubuntu 24.04, the `-trixie` Node images);
 *  - `@trufflesuite/uws-js-unofficial` 20.30.0: Node 20 only, glibc 2.34 (Debian 12).
 * The first that loads is used: 20.57 wherever it can, so a supported Node runs on it, and 20.30
 * on an older glibc with Node 20. `uwsBuild` names the one loaded (the start-up log says it).
 *
 * The `uWebSockets: 20` header every answer carried goes with `_cfg('silent')`, which both
 * builds have (it sets the loop's no-mark flag); nothing else differs in what the exchange uses.
 * May import: @btc-vision/uwebsockets.js (types), node:module.
 */
import { createRequire } from 'node:module';
import type * as Uws from '@btc-vision/uwebsockets.js';

const require = createRequire(import.meta.url);

/** The builds, preferred first, at the exact versions package.json pins. */
const BUILDS = ['@btc-vision/uwebsockets.js@20.57.0', '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0'] as const;

function load(): { uws: typeof Uws & { _cfg(key: string): void }; build: string } {
  const failures: string[] = [];
  for (const build of BUILDS) {
    const name = build.slice(0, build.lastIndexOf('@'));
    try {
      return { uws: require(name), build };
    } catch (error) {
      // The reason is the loader's last line (`GLIBC_2.38' not found`, a missing ABI's binary).
      failures.push(`${build}: ${(error as Error).message.split('\n').filter(Boolean).pop()}`);
    }
  }
  throw new Error(`no uWebSockets.js build loads on Node ${process.version} here:\n${failures.join('\n')}`);
}

const loaded = load();
loaded.uws._cfg('silent');

export const uws: typeof Uws = loaded.uws;
/** The package and version loaded, e.g. `@btc-vision/uwebsockets.js@20.57.0`. */
export const uwsBuild = loaded.build;
