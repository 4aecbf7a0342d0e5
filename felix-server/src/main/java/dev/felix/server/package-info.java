/**
 * A broker node. {@link dev.felix.server.FelixServer} starts one from a
 * {@link dev.felix.server.config.BrokerConfig} (checks, data-dir lock, core broker, QUIC listener, admin HTTP),
 * drains it and stops it; {@link dev.felix.server.ClusterMember} is the part a cluster member adds (Raft metadata,
 * router, replication, peer endpoint). Subpackages: {@code config} (settings), {@code auth}, {@code metrics},
 * {@code admin} (HTTP health and metrics) and {@code protocol} (the wire meets the core). Depends on felix-core,
 * felix-wire, felix-transport and felix-cluster.
 */
package dev.felix.server;
