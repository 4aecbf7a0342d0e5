package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheName;
import dev.felix.wire.CacheDescription;
import dev.felix.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting streams and dropping caches over QUIC (refused while in use unless forced, data removed, a
 * re-created one starts empty), listing caches, and who may create what: tenants named by authentication
 * exist from the start, reads never create.
 */
@Timeout(120)
class AdminLifecycleIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef ORDERS = StreamRef.parse("t1/default/orders");
    private static final CacheRef SESSIONS = CacheRef.parse("t1/default/sessions");

    @Test
    void deleteStream_isRefusedWhileSubscribed_forceEndsSubscribers_andARecreatedStreamStartsEmpty() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(ORDERS, StreamSpec.durable(1, "on_commit"));
            try (Publisher p = c.publisher(ORDERS)) {
                for (int i = 0; i < 3; i++) {
                    p.publish(bytes("e" + i));
                }
            }
            Path logs = dir.resolve("logs");
            assertThat(logDirs(logs)).as("the stream's log exists").hasSize(1);
            Subscription sub = c.subscribe(SubscribeOptions.of(ORDERS).fromEarliest());
            assertThat(((Event) sub.next(Duration.ofSeconds(5))).offset()).isZero();

            assertThatThrownBy(() -> c.streams().delete(ORDERS, false)).isInstanceOfSatisfying(
                    FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.IN_USE);
                        assertThat(e.getMessage()).contains("1 subscriber");
                    });

            c.streams().delete(ORDERS, true);

            FelixClientException end = drainUntilEnd(sub);
            assertThat(end.code()).as("the subscription ends, saying why").isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(end.getMessage()).contains("was deleted");
            await().atMost(Duration.ofSeconds(10)).until(() -> logDirs(logs).isEmpty());
            assertThatThrownBy(() -> c.streams().describe(ORDERS)).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThatThrownBy(() -> c.streams().delete(ORDERS, false)).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));

            c.streams().create(ORDERS, StreamSpec.durable(1, "on_commit"));
            try (Publisher p = c.publisher(ORDERS)) {
                assertThat(p.publish(bytes("fresh")).firstOffset()).as("a re-created stream starts empty").isZero();
            }
        }
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect();
                Subscription sub = c.subscribe(SubscribeOptions.of(ORDERS).fromEarliest())) {
            Item first = sub.next(Duration.ofSeconds(5));
            assertThat(text(((Event) first).payload())).as("after a restart too").isEqualTo("fresh");
        }
    }

    @Test
    void cacheListAndDrop_dropIsRefusedWhileWatched_forceEndsTheWatch_andTheLogIsGone() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.caches().create(SESSIONS, CacheSpec.log("on_commit").withTtl(Duration.ofSeconds(60)));
            c.caches().create(CacheRef.parse("t1/other/a"), CacheSpec.memory());
            try (Cache cache = c.cache(SESSIONS)) {
                cache.put("k", bytes("v"), null);
            }
            assertThat(c.caches().list(null)).extracting(CacheDescription::cache, CacheDescription::backing)
                    .as("sorted by full name: default/sessions before other/a")
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("sessions", "log"),
                            org.assertj.core.groups.Tuple.tuple("a", "memory"));
            assertThat(c.caches().list("default")).extracting(CacheDescription::ttlMs).containsExactly(60_000L);
            CacheMirror mirror = c.mirror(SESSIONS, null);
            assertThat(mirror.get("k")).isPresent();

            assertThatThrownBy(() -> c.caches().drop(SESSIONS, false)).isInstanceOfSatisfying(
                    FelixClientException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IN_USE));

            c.caches().drop(SESSIONS, true);

            CacheName name = new CacheName("t1", "default", "sessions");
            assertThat(broker.server().broker().caches().find(name)).isEmpty();
            assertThat(c.caches().list(null)).extracting(CacheDescription::cache).containsExactly("a");
            await().atMost(Duration.ofSeconds(10)).until(() -> logDirs(dir.resolve("logs")).isEmpty());
            mirror.close();

            c.caches().create(SESSIONS, CacheSpec.log("on_commit"));
            try (Cache cache = c.cache(SESSIONS)) {
                assertThat(cache.get("k")).as("a re-created cache starts empty").isEmpty();
                assertThat(cache.put("k2", bytes("v"), null)).isZero();
            }
        }
    }

    @Test
    void readsNeverCreateACache_evenInDevMode() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect();
                Cache cache = c.cache(CacheRef.parse("t1/default/typo"))) {
            assertThatThrownBy(() -> cache.get("k")).isInstanceOfSatisfying(FelixClientException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThatThrownBy(() -> c.caches().describe(CacheRef.parse("t1/default/typo")))
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThat(c.caches().list(null)).isEmpty();
            assertThat(cache.put("k", bytes("v"), null)).as("a write in dev mode creates it").isZero();
            assertThat(c.caches().list(null)).extracting(CacheDescription::cache).containsExactly("typo");
        }
    }

    @Test
    void aTenantNamedByAuthentication_existsFromTheStart() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("auth_tokens", "t1=secret"));
                FelixClient c = broker.connect(b -> b.token("secret"))) {
            assertThat(broker.server().broker().metadata().tenantExists("t1")).isTrue();
            assertThatThrownBy(() -> c.publisher(ORDERS).publish(bytes("x"))).isInstanceOfSatisfying(
                    FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                        assertThat(e.getMessage()).contains("namespace 't1/default' not found");
                    });
            c.streams().create(ORDERS, StreamSpec.ephemeral(1));
            assertThat(c.publisher(ORDERS).publish(bytes("x")).firstOffset()).isZero();
            assertThat(broker.server().broker().metadata().tenantExists("t2")).isFalse();
            assertThat(broker.server().broker().find(new StreamName("t1", "default", "orders"))).isPresent();
        }
    }

    private static FelixClientException drainUntilEnd(Subscription sub) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                sub.next(Duration.ofMillis(200));
            } catch (FelixClientException e) {
                return e;
            }
        }
        throw new AssertionError("the subscription did not end");
    }

    private static java.util.List<Path> logDirs(Path logs) throws Exception {
        if (!Files.isDirectory(logs)) {
            return java.util.List.of();
        }
        try (Stream<Path> s = Files.list(logs)) {
            return s.toList();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
