/**
 * Who leads a shard or cache in a cluster, answered from this node's replica of cluster metadata:
 * {@link dev.felix.cluster.routing.ClusterRouter}.
 */
package dev.felix.cluster.routing;
