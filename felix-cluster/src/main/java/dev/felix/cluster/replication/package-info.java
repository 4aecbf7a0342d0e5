/**
 * Shard replication on one node. {@link dev.felix.cluster.replication.Replication} is the entry: it gives the core
 * a commit gate per durable shard this node leads ({@link dev.felix.cluster.replication.ReplicatedGate}, which
 * acknowledges a batch once enough replicas hold it and serves followers' fetches) and, through
 * {@link dev.felix.cluster.replication.ReplicaManager}, keeps this node's replicas in line with cluster metadata:
 * leading where metadata says so, following elsewhere ({@link dev.felix.cluster.replication.FollowerReplica}, one
 * {@link dev.felix.cluster.replication.SerialLane} writer per replica log). Depends on felix-core's writer seam,
 * felix-storage, the cluster metadata and the peer protocol ({@code dev.felix.cluster.peer}).
 */
package dev.felix.cluster.replication;
