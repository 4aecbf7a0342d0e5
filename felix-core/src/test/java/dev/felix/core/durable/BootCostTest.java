package dev.felix.core.durable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.broker.Broker;
import dev.felix.core.CoreConfig;
import dev.felix.core.FelixError;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Stream;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Boot cost does not grow with stored data: with 2,000 durable streams on disk, starting a broker reads
 * no definition and opens no log; the first use of a stream opens exactly its own log.
 */
@Timeout(180)
class BootCostTest {

    static final int STREAMS = 2_000;

    @TempDir
    Path dir;

    @Test
    void startingOverTwoThousandStoredStreams_opensNoLog_andFirstUseOpensOnlyThatLog() throws Exception {
        CoreConfig config = CoreConfig.defaults().withAutoCreate(false).withStorage(CoreConfig.Storage.at(dir));
        // Store 2,000 durable streams with one event each, in groups so few logs are open at once.
        for (int group = 0; group < STREAMS / 200; group++) {
            try (Broker broker = new Broker(config)) {
                for (int t = 0; t < 7; t++) {
                    broker.metadata().createTenant("t" + t).join(); // as a server does from its auth config
                }
                for (int i = group * 200; i < (group + 1) * 200; i++) {
                    Stream s = broker.createStream(name(i), new StreamConfig(1, true, StreamConfig.Fsync.NONE, 0, null));
                    assertThat(publish(s, "event-" + i).get(10, TimeUnit.SECONDS)).isZero();
                }
            }
        }

        long startedEmpty = System.nanoTime();
        try (Broker empty = new Broker(CoreConfig.defaults().withStorage(CoreConfig.Storage.at(dir.resolve("none"))))) {
            assertThat(empty.streams()).isEmpty();
        }
        long emptyNanos = System.nanoTime() - startedEmpty;

        long started = System.nanoTime();
        try (Broker broker = new Broker(config)) {
            long bootNanos = System.nanoTime() - started;
            assertThat(broker.streams()).as("no stream definition was read at boot").isEmpty();
            assertThat(broker.storage().metrics().recoveries()).as("no log was opened at boot").isZero();
            System.out.printf("boot over %d stored streams: %.1f ms (empty data dir: %.1f ms)%n", STREAMS,
                    bootNanos / 1e6, emptyNanos / 1e6);

            // First use of one stream: its definition is read and its log opened, nothing else.
            Stream s = broker.stream(name(1234));
            assertThat(s.config().durable()).isTrue();
            assertThat(publish(s, "more").get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(broker.storage().metrics().recoveries()).isEqualTo(1);
            assertThat(broker.streams()).hasSize(1);
        }
    }

    private static StreamName name(int i) {
        return new StreamName("t" + (i % 7), "ns" + (i % 13), "s" + i);
    }

    private static CompletableFuture<Long> publish(Stream s, String text) {
        CompletableFuture<Long> offset = new CompletableFuture<>();
        s.shard(0).tryPublish(PublishRequest.of(new byte[][] {text.getBytes()}, new PublishListener() {
            @Override
            public void accepted(int shard, long firstOffset, int count) {
                offset.complete(firstOffset);
            }

            @Override
            public void failed(FelixError error) {
                offset.completeExceptionally(error.toException());
            }
        }));
        return offset;
    }
}
