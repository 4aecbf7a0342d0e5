/**
 * What a node of a cluster knows and asks of the cluster, independent of how it is kept: the
 * {@link dev.felix.cluster.ClusterView} (nodes and their liveness, where every replicated shard lives, who
 * leads it, at which epoch), the reports a node sends about its replicas ({@link dev.felix.cluster.ReplicaReport}),
 * and the few transitions a node asks for itself ({@link dev.felix.cluster.ClusterControl}). Subpackages
 * keep the metadata on Apache Ratis and replicate shard logs.
 */
package dev.felix.cluster;
