/**
 * @module config/replication
 *
 * The replication settings (docs/replication.md): which role this process plays, where the
 * NATS servers are, what an acknowledgement waits for. Without `--nats` the exchange is the
 * embedded single process it always was (role primary, local durability, no NATS at all).
 * May import: config/market (ConfigError).
 */
import { ConfigError } from './market.ts';

export type Role = 'primary' | 'replica' | 'standby';
export type Durability = 'local' | 'replicated';

export interface ReplicationSettings {
  role: Role;
  /** NATS server URLs; empty: no replication (the embedded default). */
  natsUrls: string[];
  /** `local`: acknowledged once flushed here; `replicated`: flushed here and stored by JetStream. */
  durability: Durability;
  /** Where clients reach this node (written into the lease when it is the primary). Default: from host and port. */
  publicUrl: string | null;
  /** The primary's URL, named by a replica's refusals until the lease names one. */
  primaryUrl: string | null;
  /** Copies JetStream keeps of the journal stream and the lease (3 on a 3-node cluster). */
  natsReplicas: number;
  /** A primary that has not renewed its lease for this long is taken over by a standby. */
  leaseMs: number;
}

/** The flags `parseArgs` must know (all strings). */
export const REPLICATION_FLAGS = {
  role: { type: 'string' },
  nats: { type: 'string' },
  durability: { type: 'string' },
  'public-url': { type: 'string' },
  'primary-url': { type: 'string' },
  'nats-replicas': { type: 'string' },
  'lease-ms': { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof REPLICATION_FLAGS, string>>;

function httpUrl(name: string, text: string | undefined): string | null {
  if (text === undefined || text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(name, text, 'must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, text, 'must be an http:// or https:// URL');
  return text.replace(/\/+$/, '');
}

export function replicationSettings(values: Values, env: NodeJS.ProcessEnv): ReplicationSettings {
  const role = values.role ?? env.ROLE ?? 'primary';
  if (role !== 'primary' && role !== 'replica' && role !== 'standby') throw new ConfigError('ROLE', role, 'must be "primary", "replica" or "standby"');
  const natsText = values.nats ?? env.NATS_URLS ?? '';
  const natsUrls = natsText.split(',').map((u) => u.trim()).filter((u) => u !== '');
  for (const url of natsUrls) if (!/^(nats|tls):\/\/[^\s/]+$|^[^\s/:]+:\d+$/.test(url)) throw new ConfigError('NATS_URLS', url, 'must be a comma-separated list of nats://host:port URLs');
  if (role !== 'primary' && natsUrls.length === 0) throw new ConfigError('NATS_URLS', '', `must name the NATS servers for --role ${role} (it follows the primary's journal through them)`);
  const durability = values.durability ?? env.DURABILITY ?? 'local';
  if (durability !== 'local' && durability !== 'replicated') throw new ConfigError('DURABILITY', durability, 'must be "local" or "replicated"');
  if (durability === 'replicated' && natsUrls.length === 0) throw new ConfigError('DURABILITY', durability, 'needs --nats (NATS_URLS): replicated means stored by JetStream');
  const replicasText = values['nats-replicas'] ?? env.NATS_REPLICAS ?? '1';
  if (!/^[1-5]$/.test(replicasText)) throw new ConfigError('NATS_REPLICAS', replicasText, 'must be an integer from 1 to 5 (3 on a 3-node cluster)');
  const leaseText = values['lease-ms'] ?? env.LEASE_MS ?? '3000';
  const leaseMs = Number(leaseText);
  if (!/^\d{1,7}$/.test(leaseText) || leaseMs < 300) throw new ConfigError('LEASE_MS', leaseText, 'must be an integer number of milliseconds, 300 or more');
  return {
    role,
    natsUrls,
    durability,
    publicUrl: httpUrl('PUBLIC_URL', values['public-url'] ?? env.PUBLIC_URL),
    primaryUrl: httpUrl('PRIMARY_URL', values['primary-url'] ?? env.PRIMARY_URL),
    natsReplicas: Number(replicasText),
    leaseMs,
  };
}
