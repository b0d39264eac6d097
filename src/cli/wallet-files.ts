/**
 * @module cli/wallet-files
 *
 * The command line's files: the key file (`perp key create`: a private key as 0x-hex, mode
 * 0600, never printed unless asked) and beside it the session (`<key file>.session.json`, 0600:
 * the exchange's URL, the address and the login token with its expiry), so each command does
 * not sign a new login while the token has time left. Default key file: $PERP_KEY_FILE, else
 * ~/.perp/key.
 *
 * May import: node:fs, node:os, node:path, viem/accounts, client/index, cli/usage.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Session } from '../client/index.ts';
import { UsageError } from './usage.ts';

export const defaultKeyFile = (): string => process.env.PERP_KEY_FILE ?? join(homedir(), '.perp', 'key');

function writePrivate(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write: set it
}

/** Creates a key file; refuses to replace one unless `force`. */
export function createKey(file: string, force: boolean): PrivateKeyAccount {
  if (existsSync(file) && !force) throw new UsageError(`${file} already exists: pass --force to replace it (its key is lost)`);
  const key = generatePrivateKey();
  writePrivate(file, `${key}\n`);
  return privateKeyToAccount(key);
}

export function readKey(file: string): { account: PrivateKeyAccount; key: `0x${string}` } {
  if (!existsSync(file)) throw new UsageError(`no key file at ${file}: create one with \`perp key create\` (or pass --key-file)`);
  const key = readFileSync(file, 'utf8').trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new UsageError(`${file} does not hold a private key (0x and 64 hex digits)`);
  return { account: privateKeyToAccount(key as `0x${string}`), key: key as `0x${string}` };
}

interface SavedSession extends Session {
  url: string;
  address: string;
}

const sessionFile = (keyFile: string) => `${keyFile}.session.json`;

/** The saved token of this key for this exchange, if any. */
export function readSession(keyFile: string, url: string, address: string): Session | undefined {
  try {
    const saved = JSON.parse(readFileSync(sessionFile(keyFile), 'utf8')) as SavedSession;
    return saved.url === url && saved.address === address ? { token: saved.token, expiresAt: saved.expiresAt } : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(keyFile: string, url: string, address: string, session: Session): void {
  writePrivate(sessionFile(keyFile), JSON.stringify({ url, address, ...session }) + '\n');
}
