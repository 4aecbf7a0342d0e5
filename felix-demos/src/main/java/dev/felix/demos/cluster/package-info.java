/**
 * The cluster demos ({@code felix demo cluster-consistency}, {@code felix demo cluster-failover}) and the
 * harness they share: real {@code felix server} node processes that are started, frozen (SIGSTOP), thawed
 * (SIGCONT), killed (SIGKILL) and restarted from their data directories ({@link dev.felix.demos.cluster.NodeProcess},
 * {@link dev.felix.demos.cluster.LocalCluster}).
 */
package dev.felix.demos.cluster;
