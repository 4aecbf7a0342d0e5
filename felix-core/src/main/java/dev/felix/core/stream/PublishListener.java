package dev.felix.core.stream;

import dev.felix.core.FelixError;

/**
 * Completion of a {@link PublishRequest}. Called exactly once, from the shard's writer thread (or the
 * thread that completed the durability step); implementations must not block.
 */
public interface PublishListener {

    /**
     * The batch was accepted at its durability point (ephemeral: taken into the shard; durable: written
     * to the log, and forced to the device under {@code on_commit}).
     *
     * @param shard        the shard it went to
     * @param firstOffset  offset of its first event; the others follow contiguously
     * @param count        number of events
     */
    void accepted(int shard, long firstOffset, int count);

    /** The batch was not accepted; no subscriber received any of it. */
    void failed(FelixError error);
}
