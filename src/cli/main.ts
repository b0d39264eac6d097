/**
 * @module cli/main
 *
 * The `perp` process (`npm run cli -- …` in the repository; the package's `bin` through
 * bin/perp.js): runs cli/run's `runCli` on the process's arguments, writes to standard output
 * and error, and ends with its exit status (0 done, 1 refused or unreachable, 2 bad input).
 * A command that finished leaves the process to end by itself (a `feed follow` closes its
 * socket first); a failure ends it at once.
 *
 * May import: ./run.
 */
import { runCli } from './run.ts';

const status = await runCli(process.argv.slice(2), { out: (text) => console.log(text), err: (text) => console.error(text) });
if (status !== 0) process.exit(status);
