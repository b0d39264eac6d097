/**
 * @module config/preflight
 *
 * What the settings need of the machine, checked before anything is opened: the data directory
 * is (or can be made) a writable directory, and each listen address can be bound on this
 * machine. A failure is a `ConfigError` naming the setting — the one line the process prints
 * before it exits with status 2 — instead of an lmdb or uWebSockets.js failure after a replay.
 * May import: config/, node:fs, node:net, node:path.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { ConfigError } from './market.ts';

/** What a data directory holds, each a directory (storage/data-directory). */
const PARTS = ['journal', 'snapshots', 'history'];

/** Makes `dir` if it is missing; refuses a file, a directory the process cannot write, or one whose journal/, snapshots/ or history/ is a file. */
export function checkDataDirectory(dir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    try {
      mkdirSync(dir, { recursive: true });
      return;
    } catch (error) {
      throw new ConfigError('DATA_DIR', dir, `must be a directory the exchange can create (${(error as NodeJS.ErrnoException).code}: ${reasonOf(error)})`);
    }
  }
  if (!isDirectory) throw new ConfigError('DATA_DIR', dir, 'must be a directory, but it is a file');
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new ConfigError('DATA_DIR', dir, 'must be a directory the exchange can write to');
  }
  for (const part of PARTS) {
    const path = join(dir, part);
    let isFile = false;
    try {
      isFile = !statSync(path).isDirectory();
    } catch {
      // absent: made at start
    }
    if (isFile) throw new ConfigError('DATA_DIR', dir, `must hold ${part}/ as a directory, but ${path} is a file`);
  }
}

/**
 * Binds `host:port` for a moment, so a port in use or an address this machine does not have is
 * told by name (uWebSockets.js only says that listening failed). `portSetting` names the flag.
 */
export function checkListen(host: string, port: number, portSetting = 'PORT'): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenError(host, port, portSetting, error)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function listenError(host: string, port: number, portSetting: string, error: NodeJS.ErrnoException): ConfigError {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(portSetting, port, `must be a free port: another process listens on ${host}:${port}`);
    case 'EACCES':
      return new ConfigError(portSetting, port, `must be a port this user may listen on (below 1024 needs privileges)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError('HOST', host, 'must be an address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every interface)');
    default:
      return new ConfigError('HOST', host, `cannot be listened on with port ${port} (${error.code}: ${reasonOf(error)})`);
  }
}

function reasonOf(error: unknown): string {
  return (error as Error).message.replace(/^\w+: /, '');
}
