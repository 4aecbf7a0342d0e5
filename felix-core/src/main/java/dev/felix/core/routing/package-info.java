/**
 * Who leads each shard and cache: {@link dev.felix.core.routing.Router}. A single node leads everything
 * ({@link dev.felix.core.routing.LocalRouter}); a cluster member answers from its replica of the cluster
 * metadata. Servers ask it before touching a shard or cache, so {@code not_leader} has one source.
 */
package dev.felix.core.routing;
