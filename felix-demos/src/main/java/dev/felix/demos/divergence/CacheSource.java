package dev.felix.demos.divergence;

import dev.felix.client.Cache;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import java.util.concurrent.CompletableFuture;

/**
 * A change source on a cache: each change is a put of the key's name with the change's payload as its
 * value (so a value carries the version that wrote it); each consumer is a {@link dev.felix.client.CacheMirror}
 * of the whole cache.
 */
final class CacheSource implements ChangeSource {

    static final CacheRef CACHE = new CacheRef("t1", "default", "config");

    private final int watchQueueEvents;

    private CacheSource(int watchQueueEvents) {
        this.watchQueueEvents = watchQueueEvents;
    }

    /** Creates the cache; every mirror asks for a broker-side watch queue of {@code watchQueueEvents} changes. */
    static CacheSource create(FelixClient admin, CacheSpec spec, int watchQueueEvents) {
        admin.caches().create(CACHE, spec);
        return new CacheSource(watchQueueEvents);
    }

    @Override
    public Writer writer(FelixClient client, int payloadBytes) {
        Cache cache = client.cache(CACHE); // closed with its client
        // Puts on one stream are applied and acknowledged in request order, so the cache's last writer is
        // the authority's last writer. A tick's puts are pipelined and awaited together.
        return (changes, accepted) -> {
            CompletableFuture<?>[] puts = new CompletableFuture<?>[changes.size()];
            for (int i = 0; i < puts.length; i++) {
                ChangePayload c = changes.get(i);
                puts[i] = cache.putAsync(Keyspace.name(c.key()), c.encode(payloadBytes), null)
                        .thenRun(() -> accepted.accept(1));
            }
            return CompletableFuture.allOf(puts);
        };
    }

    @Override
    public Replica replica(String name, FelixClient client, int keys) {
        return new MirrorReplica(name, client.mirror(CACHE, null, watchQueueEvents), keys);
    }

    @Override
    public long publishedEnd(FelixClient client) {
        Long next = client.caches().describe(CACHE).nextOffset();
        return next == null ? 0 : next;
    }
}
