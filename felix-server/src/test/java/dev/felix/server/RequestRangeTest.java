package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.wire.ErrorCode;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Numeric request fields out of range are refused with {@code bad_request} naming the field, the valid
 * range and the value as sent; a negative number a client sends as a u64 (2^64 - 5 for -5) is never
 * read as a huge value ("past the tail", "too large") nor silently clamped.
 */
@Timeout(60)
class RequestRangeTest {

    @TempDir
    Path dir;

    @Test
    void outOfRangeFieldsAreBadRequestsNamingTheField() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            StreamRef s = StreamRef.parse("t1/default/s");
            assertRefused(() -> c.streams().create(s, new StreamSpec(1, true, null, -5L, null)),
                    "retention_bytes must be within [0, 2^63-1], got 18446744073709551611");
            assertRefused(() -> c.streams().create(s, new StreamSpec(1, true, null, null, Duration.ofMillis(-5))),
                    "retention_age_ms must be within [1, 2^63-1], got 18446744073709551611");
            assertRefused(() -> c.streams().create(s, new StreamSpec(1, true, null, null, Duration.ZERO)),
                    "retention_age_ms must be within [1, 2^63-1], got 0");
            assertRefused(() -> c.streams().create(s, new StreamSpec(-1, false, null, null, null)),
                    "shards must be within [1, 1024], got 4294967295");
            assertThat(broker.server().broker().streams()).as("nothing was created").isEmpty();

            c.publisher(s).publish(new byte[] {1});
            assertRefused(() -> c.subscribe(SubscribeOptions.of(s).fromOffset(-5)),
                    "start.offset must be within [0, 2^63-1], got 18446744073709551611");

            CacheRef cache = CacheRef.parse("t1/default/c");
            assertRefused(() -> c.caches().create(cache, CacheSpec.memory().withTtl(Duration.ofMillis(-5))),
                    "ttl_ms must be within [1, 2^63-1], got 18446744073709551611");
            assertRefused(() -> c.caches().create(cache, CacheSpec.memory().withTtl(Duration.ZERO)),
                    "ttl_ms must be within [1, 2^63-1], got 0");
            assertRefused(() -> c.caches().create(cache, CacheSpec.memory().withMaxEntries(-1)),
                    "max_entries must be within [1, 2147483647], got 18446744073709551615");
        }
    }

    private static void assertRefused(ThrowingCallable call, String message) {
        FelixClientException e = catchThrowableOfType(FelixClientException.class, call);
        assertThat(e).as(message).isNotNull();
        assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(e.getMessage()).contains(message);
    }
}
