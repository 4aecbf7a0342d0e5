package dev.felix.core.stream;

import dev.felix.core.CoreConfig;
import dev.felix.core.CoreMetrics;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import java.security.SecureRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/** Builds streams and their shards with the broker's shared executor, metrics and id sequence. */
public final class StreamFactory {

    private final CoreConfig config;
    private final CoreMetrics metrics;
    private final Executor executor;
    private final AtomicLong subscriberIds = new AtomicLong();
    private final SecureRandom random = new SecureRandom();

    public StreamFactory(CoreConfig config, CoreMetrics metrics, Executor executor) {
        this.config = config;
        this.metrics = metrics;
        this.executor = executor;
    }

    public Stream create(StreamName name, StreamConfig streamConfig) {
        QueuePolicy policy = streamConfig.durable() ? config.durablePolicy() : config.ephemeralPolicy();
        Shard[] shards = new Shard[streamConfig.shards()];
        for (int i = 0; i < shards.length; i++) {
            // A fresh random incarnation: offsets of an earlier run of this shard mean nothing here.
            long incarnation = random.nextLong() & Long.MAX_VALUE;
            if (incarnation == 0) {
                incarnation = 1;
            }
            shards[i] = new Shard(name + "/" + i, i, incarnation, config, metrics, executor,
                    subscriberIds::incrementAndGet, policy);
        }
        return new Stream(name, streamConfig, shards);
    }

    /** Ends the stream's subscriptions and fails its queued publishes. */
    public static void close(Stream stream) {
        stream.close();
    }
}
