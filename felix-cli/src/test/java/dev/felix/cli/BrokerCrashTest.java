package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.ClientConfig;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.testing.BrokerProcess;
import dev.felix.transport.ClientTrust;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety with real processes: a broker with an {@code on_commit} durable stream takes acknowledged
 * publishes from several publishers while the test kills it with SIGKILL at random moments, 20 rounds.
 * After every restart each acknowledged record is read back at its offset, offsets are contiguous from
 * 0, and no record appears twice.
 */
@Timeout(900)
class BrokerCrashTest {

    static final int ROUNDS = 20;
    static final int PUBLISHERS = 4;
    static final StreamRef STREAM = StreamRef.parse("t1/crash/orders");

    @TempDir
    Path dir;

    @Test
    void kill9_atRandomMoments_losesNoAcknowledgedRecord() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Map<Long, String> acknowledged = new ConcurrentHashMap<>();
        Random random = new Random(20261130L);
        for (int round = 0; round < ROUNDS; round++) {
            BrokerProcess broker = BrokerProcess.start(data, dir, "round-" + round, List.of());
            try (broker; FelixClient client = connect(data, broker)) {
                if (round == 0) {
                    client.streams().create(STREAM, StreamSpec.durable(1, "on_commit"));
                } else {
                    verify(client, acknowledged);
                }
                AtomicBoolean stop = new AtomicBoolean();
                List<CompletableFuture<Void>> publishers = new ArrayList<>();
                for (int p = 0; p < PUBLISHERS; p++) {
                    String prefix = "r" + round + "-p" + p + "-";
                    Publisher publisher = client.publisher(STREAM);
                    publishers.add(CompletableFuture.runAsync(() -> publish(publisher, prefix, stop, acknowledged)));
                }
                Thread.sleep(200 + random.nextInt(1300)); // a random moment, mid-publish
                broker.kill();
                stop.set(true);
            }
        }
        BrokerProcess last = BrokerProcess.start(data, dir, "final", List.of());
        try (FelixClient client = connect(data, last)) {
            long total = verify(client, acknowledged);
            assertThat(acknowledged).hasSizeGreaterThan(ROUNDS * 10);
            assertThat(total).isGreaterThanOrEqualTo(acknowledged.size());
        } finally {
            last.close();
        }
    }

    /** Publishes unique payloads with up to 16 acknowledgements in flight until stopped or failing. */
    private static void publish(Publisher publisher, String prefix, AtomicBoolean stop, Map<Long, String> acked) {
        Semaphore window = new Semaphore(16);
        for (int seq = 0; !stop.get(); seq++) {
            try {
                window.acquire();
            } catch (InterruptedException e) {
                return;
            }
            String payload = prefix + seq;
            CompletableFuture<PublishAck> ack;
            try {
                ack = publisher.publishAsync(payload.getBytes(StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                return; // the connection is gone
            }
            ack.whenComplete((a, err) -> {
                window.release();
                if (err == null) {
                    acked.put(a.firstOffset(), payload);
                }
            });
        }
    }

    /** Reads the whole log; every acknowledged record must be at its offset, nothing twice. */
    private static long verify(FelixClient client, Map<Long, String> acknowledged) {
        long tail = client.streams().describe(STREAM).shardInfo().get(0).nextOffset();
        Set<String> seen = new HashSet<>();
        long next = 0;
        if (tail > 0) {
            try (Subscription s = client.subscribe(SubscribeOptions.of(STREAM).fromEarliest())) {
                while (next < tail) {
                    Item item = s.next(Duration.ofSeconds(20));
                    assertThat(item).as("record at offset " + next + " of " + tail).isInstanceOf(Event.class);
                    Event e = (Event) item;
                    assertThat(e.offset()).as("contiguous offsets").isEqualTo(next);
                    String payload = new String(e.payload(), StandardCharsets.UTF_8);
                    assertThat(seen.add(payload)).as("no duplicate: " + payload).isTrue();
                    String expected = acknowledged.get(next);
                    if (expected != null) {
                        assertThat(payload).as("acknowledged record at offset " + next).isEqualTo(expected);
                    }
                    next++;
                }
            }
        }
        for (Long offset : acknowledged.keySet()) {
            assertThat(offset).as("every acknowledged offset is below the tail after restart").isLessThan(tail);
        }
        return tail;
    }

    private static FelixClient connect(Path data, BrokerProcess broker) throws Exception {
        return FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(data.resolve("tls/cert.pem")))
                .broker(broker.quicAddress())
                .requestTimeout(Duration.ofSeconds(2)) // after a kill, closing waits at most this long
                .build());
    }
}
