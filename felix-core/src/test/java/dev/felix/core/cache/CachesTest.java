package dev.felix.core.cache;

import static dev.felix.core.cache.CacheFixture.barrier;
import static dev.felix.core.cache.CacheFixture.get;
import static dev.felix.core.cache.CacheFixture.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's registry: create / get / list, persisted definitions, lazy loading, timer sweeps, close. */
class CachesTest {

    @TempDir
    Path tmp;
    CacheFixture fx;

    @BeforeEach
    void setUp() {
        fx = new CacheFixture(tmp);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private static final CacheName LOG = new CacheName("acme", "prod", "routes");
    private static final CacheName MEM = new CacheName("acme", "prod", "sessions");

    @Test
    void create_get_list_andTypedErrors() throws FelixException {
        try (Caches caches = new Caches(fx.runtime())) {
            Cache c = caches.create(MEM, CacheConfig.memory());
            assertThat(caches.create(MEM, CacheConfig.memory())).as("same definition: idempotent").isSameAs(c);
            assertThat(caches.get(MEM)).isSameAs(c);
            assertThatThrownBy(() -> caches.create(MEM, CacheConfig.memory().withMaxEntries(5)))
                    .isInstanceOfSatisfying(FelixException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
            assertThatThrownBy(() -> caches.get(new CacheName("acme", "prod", "nope")))
                    .isInstanceOfSatisfying(FelixException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThat(caches.find(new CacheName("acme", "prod", "nope"))).isEmpty();
            caches.create(LOG, CacheConfig.log(StreamConfig.Fsync.ON_COMMIT));
            caches.create(new CacheName("acme", "dev", "x"), CacheConfig.memory());
            caches.create(new CacheName("other", "prod", "y"), CacheConfig.memory());
            assertThat(caches.list("acme", "prod")).containsExactly(LOG, MEM);
            assertThat(caches.list("acme", null)).hasSize(3);
        }
    }

    @Test
    void logCache_onANodeWithoutStorage_isABadRequest() {
        try (Caches caches = new Caches(CacheRuntime.memoryOnly(fx.writers))) {
            assertThatThrownBy(() -> caches.create(LOG, CacheConfig.log(StreamConfig.Fsync.PERIODIC)))
                    .isInstanceOfSatisfying(FelixException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        }
    }

    @Test
    void restart_findsDefinitionsLazily_andLogCachesKeepTheirData() throws FelixException {
        long incarnation;
        long memIncarnation;
        try (Caches caches = new Caches(fx.runtime())) {
            Cache log = caches.create(LOG, CacheConfig.log(StreamConfig.Fsync.ON_COMMIT).withMaxEntries(10));
            Cache mem = caches.create(MEM, CacheConfig.memory().withDefaultTtl(Duration.ofMinutes(5)));
            put(log, "r1", "10.0.0.1");
            put(mem, "s1", "alice");
            incarnation = barrier(log).incarnation();
            memIncarnation = mem.incarnation();
        }
        assertThat(tmp.resolve("caches/acme/prod/routes.cache")).exists();
        try (Caches caches = new Caches(fx.runtime())) {
            assertThat(caches.caches()).as("boot reads nothing").isEmpty();
            Cache log = caches.get(LOG);
            assertThat(log.config().maxEntries()).isEqualTo(10);
            assertThat(log.config().fsync()).isEqualTo(StreamConfig.Fsync.ON_COMMIT);
            assertThat(log.info().loaded()).as("named, not loaded").isFalse();
            assertThat(get(log, "r1")).isEqualTo("10.0.0.1");
            assertThat(log.incarnation()).isEqualTo(incarnation);
            Cache mem = caches.get(MEM);
            assertThat(mem.config().defaultTtl()).isEqualTo(Duration.ofMinutes(5));
            assertThat(get(mem, "s1")).as("memory caches come back empty").isNull();
            assertThat(mem.incarnation()).as("... in a new incarnation").isNotEqualTo(memIncarnation);
        }
    }

    @Test
    void logDirectory_isNextToStreamLogs_andCannotCollideWithAStream() throws FelixException {
        try (Caches caches = new Caches(fx.runtime())) {
            Cache c = caches.create(LOG, CacheConfig.log(StreamConfig.Fsync.PERIODIC));
            put(c, "k", "v");
            Path dir = c.directory();
            assertThat(dir.getParent()).isEqualTo(tmp.resolve("logs"));
            long uid = caches.metadataUid(LOG);
            assertThat(uid).as("a created cache has a uid").isNotZero();
            assertThat(dir).as("named with its uid, so a re-created cache never sees the old log")
                    .isEqualTo(new dev.felix.storage.LogId("acme", "prod", "cache:routes", 0, uid)
                    .resolve(tmp.resolve("logs")));
            assertThat(dir).isNotEqualTo(new dev.felix.storage.LogId("acme", "prod", "cache_routes", 0)
                    .resolve(tmp.resolve("logs")));
            assertThat(Files.exists(dir.resolve(CacheMeta.FILE))).isTrue();
        }
    }

    @Test
    void timer_sweepsExpiredEntriesWithoutAnyRead() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            CacheRuntime rt = new CacheRuntime(fx.writers, fx.io, timer, fx.clock, fx.storage, tmp,
                    Duration.ofMillis(5));
            try (Caches caches = new Caches(rt)) {
                Cache c = caches.create(MEM, CacheConfig.memory());
                put(c, "k", "v", Duration.ofSeconds(30));
                put(c, "keep", "v");
                fx.clock.advance(Duration.ofSeconds(31));
                Await.until("the timer swept", () -> c.metrics().expirations.sum() == 1);
                assertThat(barrier(c).entries()).isEqualTo(1);
                assertThat(c.metrics().misses.sum() + c.metrics().hits.sum()).isZero();
            }
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void close_closesEveryCache_andRefusesNewWork() throws FelixException {
        Caches caches = new Caches(fx.runtime());
        Cache c = caches.create(LOG, CacheConfig.log(StreamConfig.Fsync.PERIODIC));
        put(c, "k", "v");
        caches.close();
        assertThat(Await.failure(c.put("k", CacheFixture.bytes("v"), null)).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThatThrownBy(() -> caches.create(MEM, CacheConfig.memory()))
                .isInstanceOfSatisfying(FelixException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
        assertThat(CacheMetaReader.clean(c.directory())).as("a clean shutdown is recorded").isTrue();
    }

    /** Reads the clean flag of a cache directory. */
    static final class CacheMetaReader {
        static boolean clean(Path dir) {
            try {
                return CacheMeta.read(dir).clean();
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }
    }
}
