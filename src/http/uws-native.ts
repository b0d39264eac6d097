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
 * on an older glibc with Node 20. `uwsNative().build` names the one loaded (the start-up log says it).
 *
 * The `uWebSockets: 20` header every answer carried goes with `_cfg('silent')`, which both
 * builds have (it sets the loop's no-mark flag); nothing else differs in what the exchange uses.
 * May import: @btc-vision/uwebsockets.js (types), config/market (its error), node:module. At run
 * time, through `createRequire`, both builds: @btc-vision/uwebsockets.js and
 * @trufflesuite/uws-js-unofficial.
 */
import { createRequire } from 'node:module';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { ConfigError } from '../config/market.ts';

const require = createRequire(import.meta.url);

/**
 * The builds, preferred first, at the exact versions package.json pins, and the module each
 * loads from. 20.30 is required by its binary's path: its package's entry point falls back, where
 * no binary fits, to a JavaScript imitation that crashes on the first request (issue 18).
 */
const BUILDS = [
  { build: '@btc-vision/uwebsockets.js@20.57.0', module: '@btc-vision/uwebsockets.js' },
  {
    build: '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0',
    module: `@trufflesuite/uws-js-unofficial/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`,
  },
] as const;

function load(): { uws: typeof Uws; build: string } {
  const failures: string[] = [];
  for (const { build, module } of BUILDS) {
    try {
      const uws = require(module) as typeof Uws & { _cfg(key: string): void };
      uws._cfg('silent');
      return { uws, build };
    } catch (error) {
      // Why, in one line: no binary for this Node (the first line), or the loader's reason (the last: `GLIBC_2.38' not found`).
      const lines = (error as Error).message.split('\n').filter(Boolean);
      failures.push(`${build}: ${(error as { code?: string }).code === 'MODULE_NOT_FOUND' ? lines[0] : lines.pop()}`);
    }
  }
  throw new ConfigError('node', process.version, `must be a Node with a uWebSockets.js build that loads here (Node 22 or 24 need glibc 2.38; see the README, "Which Node"): ${failures.join('; ')}`);
}

let loaded: { uws: typeof Uws; build: string } | undefined;

/**
 * uWebSockets.js and the build's name (`@btc-vision/uwebsockets.js@20.57.0`), loaded at the first
 * call: the process calls it before anything starts, so a Node no build fits ends the start with
 * one line (config/market `ConfigError`).
 */
export function uwsNative(): { uws: typeof Uws; build: string } {
  return (loaded ??= load());
}
