/**
 * @module http/routes/cluster
 *
 * What a replicated node adds to every route (docs/replication.md): `GET /cluster` — its role,
 * the primary's URL, the lease and its lag — answered by any node so a client finds the
 * primary; a refusal of every write while this node is not the primary (a replica, a standby,
 * a deposed primary), naming where writes go — also for a write in flight when this node was
 * deposed; and its lag on every reply (`X-Replica-Lag`).
 * Logging in is not a write (nothing is journaled): a replica serves it, for account reads.
 * May import: http/ (endpoint, errors, uws types).
 */
import type { HttpReply, Route } from '../uws.ts';
import { route, type DeclaredRoute, type Endpoint } from '../endpoint.ts';
import { documentedError, GatewayCode, saying } from '../errors.ts';

/** What the gateway needs of the replication (src/replication implements it). */
export interface ClusterPort {
  /** The reply to a write now: null while this node is the primary and takes writes. */
  writeRefusal(): HttpReply | null;
  /** Headers for every reply (the replica's lag), or null. */
  headers(): Record<string, string> | null;
  /** GET /cluster: role, primary, lease, lag. */
  describe(): Record<string, unknown>;
}

/** Requests a node that is not the primary still serves: reads, and logging in. */
function isRead(route: Route): boolean {
  return route.method === 'get' || route.method === 'head' || route.method === 'options' || route.pattern.startsWith('/auth/');
}

/** GET /cluster: served by a replicated node only (gateway `cluster`). */
export function clusterRoute(cluster: ClusterPort): DeclaredRoute {
  return route(CLUSTER, (_req, _query, serialize) => ({ status: 200, body: serialize(cluster.describe()) }));
}

/** The route table of a replicated node, GET /cluster among it: every route wrapped. */
export function clusterRoutes(table: readonly DeclaredRoute[], cluster: ClusterPort): DeclaredRoute[] {
  const withHeaders = (reply: HttpReply): HttpReply => {
    const extra = cluster.headers();
    return extra === null ? reply : { ...reply, headers: { ...reply.headers, ...extra } };
  };
  return table.map((declared): DeclaredRoute => ({
    ...declared,
    handler: async (req) => {
      if (isRead(declared)) return withHeaders(await declared.handler(req));
      const refusal = cluster.writeRefusal();
      if (refusal !== null) return withHeaders(refusal);
      try {
        return withHeaders(await declared.handler(req));
      } catch (error) {
        // A write in flight as this node was deposed: the stream refused its records (a deposed
        // primary cuts them, or stops), so it was not taken — say where to send it, not 500.
        const deposed = cluster.writeRefusal();
        if (deposed !== null) return withHeaders(deposed);
        throw error;
      }
    },
  }));
}

const PATH = '/cluster';

export const CLUSTER: Endpoint = {
  method: 'get', path: PATH, tag: 'Operations', summary: 'Replication: role and primary',
  description: 'On a replicated node only (docs/replication.md): its role (primary, replica, standby), the primary\'s URL, the lease and its lag. A node that is not the primary refuses writes with 421 naming the primary. A node that is not replicated answers 404.',
  auth: false, response: { type: 'object', additionalProperties: true }, errors: [saying(documentedError(GatewayCode.RouteNotFound, 'path'), PATH)],
  ignoresQuery: true,
};
