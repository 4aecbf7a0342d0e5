package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Directory naming (semantics.md §11.2) and segment file naming. */
class LogIdTest {

    @Test
    void directoryName_matchesUpstreamVectors() {
        assertThat(new LogId("acme", "default", "orders", 0).directoryName())
            .isEqualTo("acme_default_orders_0-0d3aed4b998d2798");
        assertThat(new LogId("acme", "default", "orders", 3).directoryName())
            .isEqualTo("acme_default_orders_3-0d3af04b998d2cb1");
    }

    @Test
    void readablePart_isSanitisedCutAndNeverEmpty() {
        final String name = new LogId("a.b/c", "", "x".repeat(40) + "é", 7).directoryName();
        assertThat(name).startsWith("a_b_c___" + "x".repeat(32) + "_7-");
        assertThat(name).matches("[A-Za-z0-9_-]+-[0-9a-f]{16}");
        // The hash covers the raw names, so sanitised collisions stay distinct.
        assertThat(new LogId("a.b", "n", "s", 0).directoryName())
            .isNotEqualTo(new LogId("a_b", "n", "s", 0).directoryName());
        assertThat(new LogId("ü", "n", "s", 0).directoryName()).startsWith("__n_s_0-");
    }

    @Test
    void resolve_touchesNothing(@TempDir final Path tmp) {
        final Path root = tmp.resolve("does-not-exist");
        final Path dir = new LogId("acme", "default", "orders", 0).resolve(root);
        assertThat(dir).isEqualTo(root.resolve("acme_default_orders_0-0d3aed4b998d2798"));
        assertThat(Files.exists(root)).isFalse();
    }

    @Test
    void label_andValidation() {
        assertThat(new LogId("t", "n", "s", 2).label()).isEqualTo("t/n/s/2");
        assertThatThrownBy(() -> new LogId("t", "n", "s", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void segmentFileNames_areZeroPaddedIdsParsedNumerically() {
        assertThat(SegmentFiles.logName(0)).isEqualTo("00000000000000000000.log");
        assertThat(SegmentFiles.indexName(12)).isEqualTo("00000000000000000012.index");
        assertThat(SegmentFiles.parseId("00000000000000000012.log")).isEqualTo(12);
        assertThat(SegmentFiles.parseId("12.log")).isEqualTo(12);
        assertThat(SegmentFiles.parseId("00000000000000000012.index")).isEqualTo(-1);
        assertThat(SegmentFiles.parseId("x12.log")).isEqualTo(-1);
        assertThat(SegmentFiles.parseId(".log")).isEqualTo(-1);
        assertThat(SegmentFiles.parseId("99999999999999999999.log")).isEqualTo(-1);
    }

    @Test
    void uid_zeroKeepsTheLegacyName_otherUidsGetTheirOwnDirectory() {
        final LogId legacy = new LogId("acme", "default", "orders", 0);
        assertThat(legacy.uid()).isZero();
        assertThat(legacy).isEqualTo(new LogId("acme", "default", "orders", 0, 0));
        assertThat(new LogId("acme", "default", "orders", 0, 0).directoryName())
            .isEqualTo("acme_default_orders_0-0d3aed4b998d2798");
        assertThat(legacy.withUid(1234).directoryName()).isEqualTo("acme_default_orders_0-0d3aed4b998d2798.00000000000004d2");
        assertThat(legacy.withUid(-1).directoryName()).isEqualTo("acme_default_orders_0-0d3aed4b998d2798.ffffffffffffffff");
        assertThat(legacy.withUid(1).directoryName()).isNotEqualTo(legacy.withUid(2).directoryName());
        assertThat(legacy.withUid(1)).isNotEqualTo(legacy);
        assertThat(legacy.withUid(7).label()).isEqualTo(legacy.label());
    }

    @Test
    void aRecreatedStream_withANewUid_neverSeesTheOldData(@TempDir final Path tmp) {
        final LogId first = new LogId("t", "n", "s", 0, 1);
        try (StorageRuntime runtime = StorageRuntime.create()) {
            try (SegmentedLog log = SegmentedLog.open(first.resolve(tmp), LogConfig.defaults(), runtime)) {
                log.append(new byte[] {1}, 1);
            }
            assertThat(LogDirectories.delete(first.resolve(tmp))).isTrue();
            try (SegmentedLog log = SegmentedLog.open(first.withUid(2).resolve(tmp), LogConfig.defaults(), runtime)) {
                assertThat(log.tailOffset()).isZero();
                assertThat(log.recoveryReport().created()).isTrue();
            }
        }
    }
}
