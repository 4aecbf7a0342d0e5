package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.testing.Await;
import dev.felix.storage.LogId;
import dev.felix.storage.StorageRuntime;
import dev.felix.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Caches for one test on real executors (two writer threads, one I/O thread), a {@link ManualClock} and a
 * storage runtime on a temporary directory; closes everything it made.
 */
final class CacheFixture implements AutoCloseable {

    final ManualClock clock = new ManualClock();
    final ExecutorService writers = Executors.newFixedThreadPool(2);
    final ExecutorService io = Executors.newSingleThreadExecutor();
    final StorageRuntime storage = StorageRuntime.builder().clock(clock).build();
    final Path root;
    private final AtomicLong watchIds = new AtomicLong();
    private final List<Cache> made = new ArrayList<>();

    CacheFixture(Path root) {
        this.root = root;
    }

    static CacheName name(String cache) {
        return new CacheName("t", "ns", cache);
    }

    /** A cache named {@code cache} of the given config; log caches live under {@link #root}. */
    Cache cache(String cache, CacheConfig config) {
        return cache(cache, config, dev.felix.core.writer.GateFactory.LOCAL);
    }

    /** As {@link #cache(String, CacheConfig)}, its log committed through {@code gates} (a cluster's, in tests). */
    Cache cache(String cache, CacheConfig config, dev.felix.core.writer.GateFactory gates) {
        CacheName name = name(cache);
        CacheLog log = null;
        if (config.backing() == CacheConfig.Backing.LOG) {
            Path dir = new LogId("t", "ns", "cache:" + cache, 0).resolve(root.resolve("logs"));
            log = new CacheLog(name.toString(), dir, Caches.logConfig(config), storage,
                    config.fsync() == StreamConfig.Fsync.ON_COMMIT);
        }
        Cache c = new Cache(name, config, log, writers, io, clock, watchIds::incrementAndGet, 7, gates);
        made.add(c);
        return c;
    }

    /**
     * Forgets {@code c} without closing it, as a crashed process would: its log stays open (nothing more is
     * written to it) and its meta still says "not closed cleanly".
     */
    void abandon(Cache c) {
        made.remove(c);
    }

    /** A runtime for a {@link Caches} on this fixture's executors, clock and storage. */
    CacheRuntime runtime() {
        return new CacheRuntime(writers, io, null, clock, storage, root, Duration.ofSeconds(1));
    }

    @Override
    public void close() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (Cache c : made) {
            closing.add(c.close());
        }
        for (CompletableFuture<Void> f : closing) {
            Await.get(f);
        }
        writers.shutdown();
        io.shutdown();
        try {
            assertThat(writers.awaitTermination(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(io.awaitTermination(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        storage.close();
    }

    // ------------------------------------------------------------------ helpers

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static long put(Cache c, String key, String value) {
        return Await.get(c.put(key, bytes(value), null));
    }

    static long put(Cache c, String key, String value, Duration ttl) {
        return Await.get(c.put(key, bytes(value), ttl));
    }

    static long delete(Cache c, String key) {
        return Await.get(c.delete(key));
    }

    static String get(Cache c, String key) {
        try {
            Optional<byte[]> v = c.get(key);
            return v.map(CacheFixture::text).orElse(null);
        } catch (FelixException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until every mutation and control task queued so far was handled; returns the info. */
    static CacheInfo barrier(Cache c) {
        return Await.get(c.load());
    }
}
