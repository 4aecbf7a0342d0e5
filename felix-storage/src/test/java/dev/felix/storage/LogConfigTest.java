package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

/** Defaults as documented, and every invalid value fails naming its setting. */
class LogConfigTest {

    @Test
    void defaults() {
        final LogConfig c = LogConfig.defaults();
        assertThat(c.segmentBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(c.indexSpacingBytes()).isEqualTo(4096);
        assertThat(c.maxRecordsPerRead()).isEqualTo(10_000);
        assertThat(c.maxPayloadBytes()).isEqualTo(64 * 1024 * 1024);
        assertThat(c.fsyncPolicy()).isEqualTo(FsyncPolicy.periodic(Duration.ofMillis(250)));
        assertThat(c.retentionBytes()).isEmpty();
        assertThat(c.retentionAge()).isEmpty();
        assertThat(c.retentionCheckInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.verifyAllOnOpen()).isFalse();
        assertThat(c.repairCorruptTail()).isFalse();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void invalidValues_nameTheSetting() {
        invalid(() -> LogConfig.builder().segmentBytes(59), "segmentBytes");
        invalid(() -> LogConfig.builder().indexSpacingBytes(0), "indexSpacingBytes");
        invalid(() -> LogConfig.builder().maxRecordsPerRead(0), "maxRecordsPerRead");
        invalid(() -> LogConfig.builder().maxPayloadBytes(0), "maxPayloadBytes");
        invalid(() -> LogConfig.builder().maxPayloadBytes(LogConfig.MAX_PAYLOAD_LIMIT + 1), "maxPayloadBytes");
        invalid(() -> LogConfig.builder().retentionBytes(0), "retentionBytes");
        invalid(() -> LogConfig.builder().retentionAge(Duration.ZERO), "retentionAge");
        invalid(() -> LogConfig.builder().retentionAge(Duration.ofNanos(10)).build(), "retentionAge");
        invalid(() -> LogConfig.builder().retentionCheckInterval(Duration.ofSeconds(-1)), "retentionCheckInterval");
        invalid(() -> LogConfig.builder().fsyncPolicy(null), "fsyncPolicy");
        invalid(() -> FsyncPolicy.periodic(Duration.ZERO), "fsyncPolicy.interval");
        invalid(() -> StorageRuntime.builder().flushThreads(0), "flushThreads");
    }

    @Test
    void policyLabels() {
        assertThat(FsyncPolicy.onCommit().label()).isEqualTo("on_commit");
        assertThat(FsyncPolicy.periodic().label()).isEqualTo("periodic");
        assertThat(FsyncPolicy.none().label()).isEqualTo("none");
    }

    private static void invalid(final ThrowableAssert.ThrowingCallable call, final String setting) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.code()).isEqualTo(StorageErrorCode.INVALID_CONFIG);
            assertThat(e.getMessage()).contains("setting " + setting + "=");
        });
    }
}
