/**
 * @module config/process
 *
 * The process's settings from flags and environment (flags win): port, host, data directory,
 * profile, markets file, operator key, account limits, replication (config/replication). A bad setting stops the start with a
 * message naming the setting and the value.
 * May import: config/, numeric/, node:fs, node:util, node:os, node:url.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { COLLATERAL_SCALE, ConfigError, parseMarkets, type MarketSpec } from './market.ts';
import { parseDecimal } from '../numeric/decimal.ts';
import { PROFILES, isProfileName, type Profile } from './profile.ts';
import { canonicalIp } from './ip-address.ts';
import { REPLICATION_FLAGS, replicationSettings, type ReplicationSettings } from './replication.ts';

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  profile: Profile;
  marketsFile: string;
  markets: MarketSpec[];
  /** Key for the operator API (`X-Operator-Key`); testnet has a documented default. */
  operatorKey: string;
  /** Secret that signs login tokens; derived per data directory when not given. */
  jwtSecret: string | null;
  /** Milliseconds between background snapshots (0 = only at shutdown). */
  snapshotIntervalMs: number;
  /** Market threads; markets are spread over them round-robin when they outnumber threads. */
  marketThreads: number;
  /**
   * Signature threads. Default: every core but one — the main thread (gateway, sequencer) is
   * busy all the time and a pool on every core would take turns with it on each.
   */
  signatureThreads: number;
  /** Proxies whose `X-Forwarded-For` names the client (canonical IP addresses); default none. */
  trustedProxies: string[];
  /** Smallest transfer, collateral base units (USD × 10^6); default 1 USD. */
  minTransfer: bigint;
  /** Most subaccounts one address may hold; default 32. */
  maxSubaccounts: number;
  /** One log line per request (method, path, status, latency, client); default off. */
  accessLog: boolean;
  /** pino level (`LOG_LEVEL`); default info. */
  logLevel: LogLevel;
  /** The operator API's own port on 127.0.0.1, or null: served on the public port. */
  operatorPort: number | null;
  /** Origins browsers may call the public API from (exact origins, or `*`); empty: no CORS. */
  corsOrigins: string[];
  /** Role, NATS servers and durability (config/replication); no NATS by default. */
  replication: ReplicationSettings;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const DEFAULT_MARKETS_FILE = fileURLToPath(new URL('../../config/markets.json', import.meta.url));
export const TESTNET_OPERATOR_KEY = 'testnet-operator-key';
/** Shortest operator key mainnet starts with: a guess at 2^-128 needs about 22 random characters; 32 leaves room. */
const MAINNET_OPERATOR_KEY_LENGTH = 32;
/** Keys printed in this project's README and docs: anybody can send them. */
const PUBLISHED_OPERATOR_KEYS: ReadonlySet<string> = new Set([TESTNET_OPERATOR_KEY]);

/** The words a switch in the environment may be (`ACCESS_LOG=1`). */
const SWITCH: ReadonlyMap<string, boolean> = new Map([
  ['on', true], ['1', true], ['true', true], ['yes', true],
  ['off', false], ['0', false], ['false', false], ['no', false], ['', false],
]);

/** The origin (`scheme://host[:port]`) of a URL, or undefined when it is not one. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Every core but one, at least one. */
function defaultSignatureThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** The command-line flags; each is also read from an environment variable (`--data-dir` → `DATA_DIR`), named with what it does in the README's configuration table. */
export const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  profile: { type: 'string' },
  markets: { type: 'string' },
  'operator-key': { type: 'string' },
  'jwt-secret': { type: 'string' },
  'snapshot-interval-ms': { type: 'string' },
  'market-threads': { type: 'string' },
  'signature-threads': { type: 'string' },
  'trusted-proxies': { type: 'string' },
  'min-transfer': { type: 'string' },
  'max-subaccounts': { type: 'string' },
  'access-log': { type: 'boolean' },
  'operator-port': { type: 'string' },
  'cors-origins': { type: 'string' },
  ...REPLICATION_FLAGS,
} as const;

/** `--help`: what a start takes, from `FLAGS` (the README's configuration table has each one's meaning and default). */
export function usage(): string {
  const flags = Object.entries(FLAGS).map(([name, option]) => (option.type === 'boolean' ? `--${name}` : `--${name} <value>`));
  return [
    'usage: npm start -- [flags]   (node dist/main.js [flags])',
    'Each flag is also read from an environment variable (--data-dir DIR or DATA_DIR=DIR): the README\'s "Configuration" table names it, what it does and its default.',
    `flags: ${flags.join(', ')}`,
  ].join('\n');
}

/** Reads settings from `argv` (without node and script) and `env`. Throws ConfigError. */
export function loadSettings(argv: string[], env: NodeJS.ProcessEnv): Settings {
  const { values } = parseArgs({ args: argv, options: FLAGS, strict: true });
  const profileName = values.profile ?? env.PROFILE ?? 'testnet';
  if (!isProfileName(profileName)) throw new ConfigError('PROFILE', profileName, 'must be "testnet" or "mainnet"');
  const profile = PROFILES[profileName];

  const portText = values.port ?? env.PORT ?? '8080';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) throw new ConfigError('PORT', portText, 'must be an integer from 0 to 65535');

  // A testnet answers this machine only unless told otherwise: its operator key is published.
  const host = values.host ?? env.HOST ?? (profileName === 'testnet' ? '127.0.0.1' : '0.0.0.0');
  if (host !== 'localhost' && canonicalIp(host) === undefined) {
    throw new ConfigError('HOST', host, 'must be an IP address to listen on (127.0.0.1 for this machine only, 0.0.0.0 for every interface) or localhost');
  }
  const dataDir = values['data-dir'] ?? env.DATA_DIR ?? (profileName === 'testnet' ? './data' : profile.dataDir);
  if (dataDir.length === 0) throw new ConfigError('DATA_DIR', dataDir, 'must not be empty');

  const marketsFile = values.markets ?? env.MARKETS ?? DEFAULT_MARKETS_FILE;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(marketsFile, 'utf8'));
  } catch (error) {
    throw new ConfigError('MARKETS', marketsFile, `must name a readable JSON file (${(error as Error).message})`);
  }
  const markets = parseMarkets(raw);

  const operatorKey = values['operator-key'] ?? env.OPERATOR_KEY ?? (profile.faucet ? TESTNET_OPERATOR_KEY : '');
  if (operatorKey.length < 8) throw new ConfigError('OPERATOR_KEY', operatorKey, 'must be set (8 characters or more) outside testnet');
  if (profile.name === 'mainnet' && (operatorKey.length < MAINNET_OPERATOR_KEY_LENGTH || PUBLISHED_OPERATOR_KEYS.has(operatorKey))) {
    throw new ConfigError('OPERATOR_KEY', '(hidden)', `must be a secret of ${MAINNET_OPERATOR_KEY_LENGTH} characters or more on mainnet, not a published one such as the testnet default (try: openssl rand -hex 32)`);
  }
  const jwtSecret = values['jwt-secret'] ?? env.JWT_SECRET ?? null;
  if (jwtSecret !== null && jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', '(hidden)', 'must be 32 characters or more');
  // Testnet makes one per data directory; mainnet takes the operator's, so no start ever signs
  // tokens with a key nobody chose, and every node that checks a token can be given the same one.
  if (jwtSecret === null && profile.name === 'mainnet') throw new ConfigError('JWT_SECRET', '(unset)', 'must be set on mainnet, 32 characters or more (try: openssl rand -hex 32)');

  const intervalText = values['snapshot-interval-ms'] ?? env.SNAPSHOT_INTERVAL_MS ?? '60000';
  const snapshotIntervalMs = Number(intervalText);
  if (!/^\d{1,10}$/.test(intervalText)) throw new ConfigError('SNAPSHOT_INTERVAL_MS', intervalText, 'must be an integer number of milliseconds (0 = only at shutdown)');

  const threadsText = values['market-threads'] ?? env.MARKET_THREADS ?? '2';
  const marketThreads = Number(threadsText);
  if (!/^\d{1,3}$/.test(threadsText) || marketThreads < 1 || marketThreads > 256) throw new ConfigError('MARKET_THREADS', threadsText, 'must be an integer from 1 to 256');

  const signatureText = values['signature-threads'] ?? env.SIGNATURE_THREADS ?? String(defaultSignatureThreads());
  const signatureThreads = Number(signatureText);
  if (!/^\d{1,3}$/.test(signatureText) || signatureThreads < 1 || signatureThreads > 256) throw new ConfigError('SIGNATURE_THREADS', signatureText, 'must be an integer from 1 to 256');

  const proxiesText = values['trusted-proxies'] ?? env.TRUSTED_PROXIES ?? '';
  const trustedProxies: string[] = [];
  for (const entry of proxiesText.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const address = canonicalIp(entry);
    if (address === undefined) throw new ConfigError('TRUSTED_PROXIES', entry, 'must be a comma-separated list of IP addresses');
    trustedProxies.push(address);
  }

  const minTransferText = values['min-transfer'] ?? env.MIN_TRANSFER ?? '1';
  const minTransfer = parseDecimal(minTransferText, COLLATERAL_SCALE);
  if (!minTransfer.ok || minTransfer.value <= 0n) {
    throw new ConfigError('MIN_TRANSFER', minTransferText, 'must be a positive USD amount with at most 6 decimals');
  }

  const subaccountsText = values['max-subaccounts'] ?? env.MAX_SUBACCOUNTS ?? '32';
  const maxSubaccounts = Number(subaccountsText);
  if (!/^\d{1,5}$/.test(subaccountsText) || maxSubaccounts < 1 || maxSubaccounts > 10_000) throw new ConfigError('MAX_SUBACCOUNTS', subaccountsText, 'must be an integer from 1 to 10000');

  const accessLogText = env.ACCESS_LOG ?? 'off';
  if (values['access-log'] !== true && !SWITCH.has(accessLogText)) throw new ConfigError('ACCESS_LOG', accessLogText, 'must be on or off (1/0, true/false)');
  const accessLog = values['access-log'] === true || SWITCH.get(accessLogText) === true;

  const operatorPortText = values['operator-port'] ?? env.OPERATOR_PORT ?? null;
  const operatorPort = operatorPortText === null ? null : Number(operatorPortText);
  if (operatorPortText !== null && (!/^\d{1,5}$/.test(operatorPortText) || operatorPort! > 65535)) {
    throw new ConfigError('OPERATOR_PORT', operatorPortText, 'must be an integer from 0 to 65535');
  }
  if (operatorPort !== null && operatorPort !== 0 && operatorPort === port) throw new ConfigError('OPERATOR_PORT', operatorPortText, 'must differ from PORT');

  const corsOrigins: string[] = [];
  for (const entry of (values['cors-origins'] ?? env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '')) {
    if (entry !== '*' && originOf(entry) !== entry) throw new ConfigError('CORS_ORIGINS', entry, 'must be * or origins such as https://app.example.com (scheme, host and port; no path or trailing slash)');
    corsOrigins.push(entry);
  }

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', logLevel, `must be one of ${LOG_LEVELS.join(', ')}`);

  return {
    accessLog,
    logLevel: logLevel as LogLevel,
    operatorPort,
    corsOrigins,
    host,
    port,
    dataDir,
    profile,
    marketsFile,
    markets,
    operatorKey,
    jwtSecret,
    snapshotIntervalMs,
    marketThreads,
    signatureThreads,
    trustedProxies,
    minTransfer: minTransfer.value,
    maxSubaccounts,
    replication: replicationSettings(values, env),
  };
}
