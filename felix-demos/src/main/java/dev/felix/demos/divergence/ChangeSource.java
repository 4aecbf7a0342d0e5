package dev.felix.demos.divergence;

import dev.felix.client.FelixClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * Where a mode's changes go and how consumers keep their copies: a stream mode publishes events to a
 * stream and each consumer subscribes to it ({@link StreamSource}); the watch mode puts keys into a cache
 * and each consumer mirrors it ({@link CacheSource}).
 */
interface ChangeSource {

    /** Opens the write side on {@code client}; changes are encoded into {@code payloadBytes}-byte payloads. */
    Writer writer(FelixClient client, int payloadBytes);

    /**
     * A consumer named {@code name} on {@code client}, subscribed (or watching) from the current end; returns
     * once the broker confirmed, so the publisher can start after every consumer is ready.
     */
    Replica replica(String name, FelixClient client, int keys);

    /** The offset after the last change the broker accepted (the end of the published range). */
    long publishedEnd(FelixClient client);

    /** Writes changes in order. */
    interface Writer {
        /**
         * Hands changes to the broker, in order; completes when all are written (a stream) or acknowledged
         * (a cache), and stays incomplete while backpressure holds them back. {@code accepted} is told how
         * many changes got there as they do (a stream's batch at once, a cache's puts one by one), so the
         * publisher's count is right at any instant, not only between writes.
         */
        CompletableFuture<Void> write(List<ChangePayload> changes, LongConsumer accepted);
    }
}
