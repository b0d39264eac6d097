#!/usr/bin/env node
// The `perp` command of the package (src/cli/main.ts), run through tsx: no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
