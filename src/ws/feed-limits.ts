/**
 * @module ws/feed-limits
 *
 * The feeds' limits and their defaults, and what uWS registers for the feeds' endpoint
 * (path, payload and backpressure caps), which the gateway needs before the feeds exist.
 * May import: http/uws (types).
 */
import type { SocketEndpoint } from '../http/uws.ts';

export interface FeedLimits {
  connectionsPerAddress: number;
  subscriptionsPerConnection: number;
  /** Unsent bytes above which a connection is closed as a slow consumer. */
  slowConsumerBytes: number;
  heartbeatMs: number;
  /** Most events a resume sends; further behind → `resync`. */
  maxResume: number;
  /** A market's book deltas and trades are published at most this often (merged in between). */
  publishEveryMs: number;
  /**
   * Messages a source address may send a second, over all its connections (a subscribe costs one
   * per channel it names: each is a snapshot or a catch-up); past it a message is refused.
   */
  messagesPerSecond: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
  connectionsPerAddress: 50,
  subscriptionsPerConnection: 100,
  slowConsumerBytes: 4 * 1024 * 1024,
  heartbeatMs: 10_000,
  maxResume: 10_000,
  publishEveryMs: 100,
  messagesPerSecond: 200,
};

export const FEED_PATH = '/ws';

/**
 * What uWS registers for the feeds' endpoint when the gateway listens: the gateway of a server
 * listens during its start-up replay, before the feeds exist (they start from the replayed books).
 */
export function feedSocketSettings(limits?: Partial<FeedLimits>): Pick<SocketEndpoint<unknown>, 'path' | 'maxPayloadBytes' | 'idleTimeoutSeconds' | 'maxBackpressureBytes'> {
  const { slowConsumerBytes } = { ...DEFAULT_FEED_LIMITS, ...limits };
  // uWS would drop messages above maxBackpressureBytes: far above the slow-consumer limit, which closes first.
  return { path: FEED_PATH, maxPayloadBytes: 16 * 1024, idleTimeoutSeconds: 60, maxBackpressureBytes: slowConsumerBytes * 4 };
}
