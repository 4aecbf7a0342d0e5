package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The re-watch pacing of a {@link CacheMirror}: the jitter bound doubles per consecutive attempt, capped. */
class CacheMirrorBackoffTest {

    @Test
    void theBoundDoublesFromTheBase_andStopsAtTheCap() {
        assertThat(CacheMirror.backoffBound(0)).isEqualTo(Duration.ofMillis(CacheMirror.BASE_BACKOFF_MILLIS));
        assertThat(CacheMirror.backoffBound(1)).isEqualTo(Duration.ofMillis(2 * CacheMirror.BASE_BACKOFF_MILLIS));
        assertThat(CacheMirror.backoffBound(3)).isEqualTo(Duration.ofMillis(8 * CacheMirror.BASE_BACKOFF_MILLIS));
        assertThat(CacheMirror.backoffBound(7)).isEqualTo(Duration.ofMillis(CacheMirror.MAX_BACKOFF_MILLIS));
        assertThat(CacheMirror.backoffBound(1_000)).as("no overflow after many attempts")
                .isEqualTo(Duration.ofMillis(CacheMirror.MAX_BACKOFF_MILLIS));
    }
}
