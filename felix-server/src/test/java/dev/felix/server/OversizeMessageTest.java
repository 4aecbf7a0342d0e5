package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A message larger than {@code max_frame_bytes}: the SDK refuses it before sending when its own limit
 * is exceeded; when only the broker's is, the broker logs it and answers {@code too_large} naming the
 * setting and its value, and the publisher learns it at once (not at the 30 s request timeout).
 */
@Timeout(60)
class OversizeMessageTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/big");
    private static final int BROKER_MAX = 64 * 1024;

    @Test
    void theSdkRefusesAMessageOverItsLimitBeforeSendingIt() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("max_frame_bytes", Integer.toString(BROKER_MAX)));
                FelixClient client = broker.connect(b -> b.maxFrameBytes(BROKER_MAX))) {
            Publisher publisher = client.publisher(S);
            assertThatThrownBy(() -> publisher.publishAsync(new byte[BROKER_MAX + 1]))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE);
                        assertThat(e.getMessage()).contains("max_frame_bytes (" + BROKER_MAX + " bytes");
                    });
            // The frame counts, not the payload alone: the binary batch adds its names and lengths (about 40
            // bytes here), so a payload just under the limit whose frame is over it is refused too, exactly.
            assertThatThrownBy(() -> publisher.publishAsync(new byte[BROKER_MAX - 10]))
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE));
            // Nothing reached the broker: the stream is intact and the next publish is acknowledged.
            assertThat(publisher.publish(new byte[100]).firstOffset()).isZero();
            // Binary, not base64: a payload of nearly the limit fits (as JSON it would be a third larger).
            assertThat(publisher.publish(new byte[BROKER_MAX - 100]).firstOffset()).isEqualTo(1);
            assertThat(tooLargeErrors(broker)).isZero();
        }
    }

    @Test
    void theBrokerRefusesAFrameOverItsLimitAtOnceAndThePublisherSeesTheTypedError() throws Exception {
        Logger frames = (Logger) LoggerFactory.getLogger("dev.felix.server.protocol.Frames");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        frames.addAppender(log);
        try (TestBroker broker = TestBroker.start(dir, Map.of("max_frame_bytes", Integer.toString(BROKER_MAX)));
                // This client believes frames up to 16 MiB are fine, as a misconfigured one would.
                FelixClient client = broker.connect(b -> b.maxFrameBytes(16 << 20).requestTimeout(Duration.ofSeconds(30)))) {
            Publisher publisher = client.publisher(S);
            assertThat(publisher.publish(new byte[10]).firstOffset()).isZero();
            long start = System.nanoTime();
            CompletableFuture<PublishAck> big = publisher.publishAsync(new byte[1 << 20]);
            CompletableFuture<PublishAck> after = publisher.publishAsync(new byte[10]);
            for (CompletableFuture<PublishAck> f : List.of(big, after)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOfSatisfying(FelixClientException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE);
                            assertThat(e.getMessage()).contains("max_frame_bytes (" + BROKER_MAX + " bytes)");
                        });
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            // The stream has ended now (both futures failed). A publish after that fails its future the same way,
            // never by throwing: 'after' above raced the broker's answer, and either order must look alike.
            CompletableFuture<PublishAck> late = publisher.publishAsync(new byte[10]);
            assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE));
            CompletableFuture<Void> lateSend = publisher.send(new byte[10]);
            assertThatThrownBy(() -> lateSend.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(FelixClientException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE));

            List<ILoggingEvent> warnings = log.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).getFormattedMessage()).contains("max_frame_bytes (" + BROKER_MAX)
                    .contains("127.0.0.1");
            assertThat(tooLargeErrors(broker)).isEqualTo(1);
            // Only that stream ended: the connection serves a new publisher.
            assertThat(client.publisher(S).publish(new byte[10]).firstOffset()).isEqualTo(1);
        } finally {
            frames.detachAppender(log);
        }
    }

    private static double tooLargeErrors(TestBroker broker) throws Exception {
        return broker.scrapeMetrics().lines().filter(l -> l.startsWith("felix_errors_total{code=\"too_large\"}"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
