package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
import dev.felix.server.TestBroker;
import dev.felix.server.metrics.Closes;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicTransportError;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 item 6: beside 100 watching mirrors, the broker closed the writer's cache stream
 * ({@code connection_lost}). One writer puts as fast as its acknowledgements allow (at most 128 in flight, as
 * {@code felix bench watch} does) while 100 {@link CacheMirror}s, each on its own connection as 100 consumer
 * processes would be, follow the cache; meanwhile every connection sees the transport errors Netty's QUIC codec
 * reports on a loaded connection without closing it (a send quiche refused). The broker used to close a
 * connection on any such report, taking the writer's stream and its puts in flight with it. Every put must be
 * acknowledged, no mirror may end, and every acknowledged put must be in every mirror at the end.
 */
@Timeout(240)
class WriterBesideMirrorsTest {

    private static final CacheRef CACHE = CacheRef.parse("t1/default/watched");
    private static final int MIRRORS = 100;
    private static final int KEYS = 500;
    private static final int IN_FLIGHT = 128;
    private static final Duration WRITING = Duration.ofSeconds(8);
    /** How often every connection is handed a transport error while the writer runs. */
    private static final long ERROR_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    @TempDir
    Path dir;

    @Test
    void aWriterBeside100Mirrors_keepsItsStreamThroughTransportErrors_andEveryAcknowledgedPutReachesEveryMirror()
            throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient writer = broker.connect()) {
            writer.caches().create(CACHE, CacheSpec.memory());
            Cache cache = writer.cache(CACHE);
            for (int k = 0; k < KEYS; k++) {
                cache.putAsync(key(k), value(-1), null);
            }
            cache.put(key(0), value(-1), null); // puts on one stream are applied in order: all are in
            List<FelixClient> clients = new ArrayList<>();
            List<CacheMirror> mirrors = new ArrayList<>();
            try {
                for (int i = 0; i < MIRRORS; i++) {
                    FelixClient c = broker.connect();
                    clients.add(c);
                    mirrors.add(c.mirror(CACHE, "cfg."));
                }
                ServerContext context = BrokerInternals.context(broker.server());
                assertThat(context.connections).hasSize(MIRRORS + 1);

                // The highest acknowledged sequence number per key.
                Map<String, Long> acked = new ConcurrentHashMap<>();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicLong ackedPuts = new AtomicLong();
                Semaphore window = new Semaphore(IN_FLIGHT);
                Random random = new Random(12);
                long start = System.nanoTime();
                long end = start + WRITING.toNanos();
                long nextError = start;
                int errorRounds = 0;
                for (long seq = 0; System.nanoTime() < end && failure.get() == null; ) {
                    if (System.nanoTime() >= nextError) {
                        transportErrorOnEveryConnection(context);
                        errorRounds++;
                        nextError += ERROR_EVERY_NANOS;
                    }
                    if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    String key = key(random.nextInt(KEYS));
                    long s = seq++;
                    cache.putAsync(key, value(s), null).whenComplete((offset, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            ackedPuts.incrementAndGet();
                            acked.merge(key, s, Math::max);
                        }
                        window.release();
                    });
                }
                assertThat(window.tryAcquire(IN_FLIGHT, 60, TimeUnit.SECONDS)).as("every put answered").isTrue();
                assertThat(failure.get()).as("a put failed").isNull();
                assertThat(ackedPuts.get()).isPositive();
                long errors = broker.server().metrics().connectionErrors.sum();
                assertThat(errors).as("transport errors reported").isGreaterThanOrEqualTo((long) errorRounds);

                long tail = writer.caches().describe(CACHE).nextOffset();
                for (CacheMirror m : mirrors) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> m.appliedOffset() == tail || m.endCause() != null);
                    assertThat(m.endCause()).as("a mirror ended").isNull();
                    Map<String, byte[]> copy = m.snapshot();
                    acked.forEach((k, s) -> assertThat(copy.get(k)).as("key %s in a mirror", k)
                            .isNotNull().satisfies(v -> assertThat(seq(v)).isGreaterThanOrEqualTo(s)));
                }
                assertThat(context.connections).as("no connection was lost").hasSize(MIRRORS + 1);
                for (Closes.Reason reason : Closes.Reason.values()) {
                    assertThat(broker.server().metrics().closes.connectionCount(Closes.By.BROKER, reason)).isZero();
                    assertThat(broker.server().metrics().closes.connectionCount(Closes.By.TRANSPORT, reason)).isZero();
                }
            } finally {
                for (FelixClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /**
     * Hands every broker-side connection the error Netty's QUIC codec fires when quiche refuses a send on a
     * connection that stays open, on that connection's event loop (where the codec fires it).
     */
    private static void transportErrorOnEveryConnection(ServerContext context) {
        for (ConnectionHandler handler : context.connections) {
            QuicChannel ch = handler.channel();
            ch.eventLoop().execute(() -> ch.pipeline().fireExceptionCaught(
                    new QuicException("send refused (injected by the test)", QuicTransportError.INTERNAL_ERROR)));
        }
    }


    private static String key(int k) {
        return "cfg.k" + k;
    }

    private static byte[] value(long seq) {
        return ByteBuffer.allocate(64).putLong(seq).array();
    }

    private static long seq(byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }
}
