package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SequenceCheckTest {

    @Test
    void inOrder_isClean() {
        SequenceCheck c = feed(0, 1, 2, 3);
        assertThat(c.errors(4)).isZero();
        assertThat(c.describe(4)).isEqualTo("ok");
    }

    @Test
    void missingDuplicatedReorderedAndTail_areEachCounted() {
        assertThat(feed(0, 2, 3).errors(4)).isEqualTo(1); // 1 missing
        assertThat(feed(0, 1, 1, 2, 3).errors(4)).isEqualTo(1); // 1 duplicated
        assertThat(feed(0, 2, 1, 3).describe(4)).isEqualTo("0 missing, 0 duplicated, 1 reordered");
        assertThat(feed(0, 1).describe(4)).isEqualTo("2 missing, 0 duplicated, 0 reordered"); // tail never came
    }

    @Test
    void stampRoundTrips() {
        byte[] m = Stamp.message(10, 123_456_789_012L, -5L);
        assertThat(m).hasSize(Stamp.BYTES + 10);
        assertThat(Stamp.seq(m)).isEqualTo(123_456_789_012L);
        assertThat(Stamp.sentNanos(m)).isEqualTo(-5L);
    }

    private static SequenceCheck feed(long... seqs) {
        SequenceCheck c = new SequenceCheck();
        for (long s : seqs) {
            c.accept(s);
        }
        assertThat(c.received()).isEqualTo(seqs.length);
        return c;
    }
}
