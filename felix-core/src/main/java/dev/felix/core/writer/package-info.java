/**
 * The single writer behind every shard and cache: {@link dev.felix.core.writer.WriterLoop} runs a
 * component's work on one thread at a time, {@link dev.felix.core.writer.WriterInbox} is the bounded
 * multi-producer queue that feeds it, and {@link dev.felix.core.writer.LogWriter} assigns offsets, appends
 * to the log, waits at the {@link dev.felix.core.writer.CommitGate} and hands committed batches back in
 * offset order to be made visible and acknowledged.
 *
 * <p>Durable streams and log caches use the whole of it; ephemeral shards and memory caches use it
 * without a log (the gate then opens at once). A replicated shard swaps the gate: one that opens once a
 * majority holds the batch. Nothing here knows what a batch means (events, cache changes): the owner does.
 */
package dev.felix.core.writer;
