package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OffsetCoverageTest {

    @Test
    void eventsAndGapNoticesThatCoverTheRangeAreComplete() {
        OffsetCoverage c = new OffsetCoverage(10);
        c.onEvent(10);
        c.onEvent(11);
        c.onGap(12, 19, "queue_overflow");
        c.onEvent(20);
        OffsetCoverage.Coverage r = c.against(21);
        assertThat(r.published()).isEqualTo(11);
        assertThat(r.delivered()).isEqualTo(3);
        assertThat(r.announcedMissed()).isEqualTo(8);
        assertThat(r.everyMissAnnounced()).isTrue();
        assertThat(r.complete()).isFalse(); // it missed events, announced or not
        assertThat(r.missedByReason()).containsEntry("queue_overflow", 8L);
        assertThat(r.describe()).contains("1 gap notice naming 8 missed events", "every missed event announced");
    }

    @Test
    void aFreshSnapshotAccountsForTheOffsetsItReplaced() {
        OffsetCoverage c = new OffsetCoverage(0);
        c.onEvent(0);
        c.onEvent(1);
        c.onSnapshot(2); // nothing replaced: the mirror was up to date
        c.onSnapshot(7); // a re-watch from a fresh snapshot: 2..6 are in it
        assertThat(c.position()).isEqualTo(7);
        c.onEvent(7);
        OffsetCoverage.Coverage r = c.against(8);
        assertThat(r.silentMissed()).isZero();
        assertThat(r.outOfOrder()).isZero();
        assertThat(r.notReached()).isZero();
        assertThat(r.missedByReason()).containsExactly(java.util.Map.entry(OffsetCoverage.SNAPSHOT, 5L));
        assertThat(r.delivered() + r.announcedMissed()).isEqualTo(r.published());
    }

    @Test
    void anOffsetJumpWithoutANoticeIsSilentLoss() {
        OffsetCoverage c = new OffsetCoverage(0);
        c.onEvent(0);
        c.onEvent(5);
        OffsetCoverage.Coverage r = c.against(6);
        assertThat(r.silentMissed()).isEqualTo(4);
        assertThat(r.everyMissAnnounced()).isFalse();
        assertThat(r.describe()).contains("4 events missed WITHOUT a notice");
    }

    @Test
    void theSdksOwnUnannouncedGapStillCountsAsSilent() {
        OffsetCoverage c = new OffsetCoverage(0);
        c.onGap(0, 2, OffsetCoverage.UNANNOUNCED);
        c.onEvent(3);
        assertThat(c.against(4).silentMissed()).isEqualTo(3);
    }

    @Test
    void duplicatesAndTheUnreachedTailAreReported() {
        OffsetCoverage c = new OffsetCoverage(0);
        c.onEvent(0);
        c.onEvent(0);
        OffsetCoverage.Coverage r = c.against(3);
        assertThat(r.outOfOrder()).isEqualTo(1);
        assertThat(r.notReached()).isEqualTo(2);
        assertThat(r.complete()).isFalse();
    }

    @Test
    void everythingDeliveredIsComplete() {
        OffsetCoverage c = new OffsetCoverage(0);
        for (int i = 0; i < 5; i++) {
            c.onEvent(i);
        }
        assertThat(c.against(5).complete()).isTrue();
        assertThat(c.against(5).describe()).isEqualTo("no gap notices — missed nothing");
    }
}
