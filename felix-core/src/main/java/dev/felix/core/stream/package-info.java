/**
 * Streams and their shards. A {@link dev.felix.core.stream.Stream} is a named set of
 * {@link dev.felix.core.stream.Shard}s; a shard merges queued {@link dev.felix.core.stream.PublishRequest}s into one
 * immutable {@link dev.felix.core.stream.EventBatch}, hands it to its log writer ({@code dev.felix.core.writer}) and,
 * once committed, keeps it in its {@link dev.felix.core.stream.BatchRing} and offers it through
 * {@link dev.felix.core.stream.ShardFanout} to every subscriber's bounded
 * {@link dev.felix.core.stream.SubscriberQueue} (live, or replaying from the ring and the log, with
 * {@link dev.felix.core.stream.GapNotice}s for what a subscriber missed). Entry: {@code Stream} and
 * {@code Shard.tryPublish} / {@code Shard.subscribe}. Depends on the core root, {@code writer} and felix-storage.
 */
package dev.felix.core.stream;
