/**
 * Cross-node relay: how a node serves subscribers of shards it does not lead. {@link dev.felix.cluster.relay.Relay}
 * is the entry (one per node): a dispatcher that only routes received batches to a fixed set of ordered delivery
 * workers, a delivery deadline per batch, fences on every known and unknown loss, healing through a server-supplied
 * {@link dev.felix.cluster.relay.ResumeHook}, and one paced closer for {@code resync} closes. Independent of the
 * network: a source hands it batches with offsets, a {@link dev.felix.cluster.relay.RelaySink} takes deliveries.
 */
package dev.felix.cluster.relay;
