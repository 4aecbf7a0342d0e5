package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A draining broker tells its clients why they lose it: subscriptions end, and later requests fail,
 * with {@code broker_shutting_down}, not a bare {@code connection_lost}.
 */
@Timeout(60)
class ShutdownReasonTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/s");

    @Test
    void subscriptionsAndRequestsSeeTheShutdownReason() throws Exception {
        TestBroker broker = TestBroker.start(dir);
        try (FelixClient client = broker.connect()) {
            Publisher publisher = client.publisher(S);
            Subscription subscription = client.subscribe(SubscribeOptions.of(S));
            publisher.publish(new byte[] {1});
            assertThat(subscription.next(Duration.ofSeconds(10))).isNotNull();

            broker.close();

            // Well within the client's 15 s idle timeout, the only other way it would notice.
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(subscription::ended);
            assertThat(subscription.endCause()).isNotNull();
            assertThat(subscription.endCause().code()).as(subscription.endCause().getMessage())
                    .isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !client.connected());
            FelixClientException later = catchThrowableOfType(FelixClientException.class, () -> client.publisher(S));
            assertThat(later.code()).isEqualTo(ErrorCode.BROKER_SHUTTING_DOWN);
            assertThat(later.getMessage()).contains("is shutting down");
        }
    }
}
