package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link DeciderPauses}: a late round marks a pause, and no silence is counted from before it. */
class DeciderPausesTest {

    private final DeciderPauses pauses = new DeciderPauses(1_000);

    @Test
    void roundsOnTime_areNoPause_andChangeNothing() {
        assertThat(pauses.roundStarts(10_000)).as("the first round").isZero();
        pauses.roundEnds(10_050);
        assertThat(pauses.roundStarts(10_300)).isZero();
        pauses.roundEnds(10_300);
        assertThat(pauses.roundStarts(11_300)).as("exactly the threshold").isZero();

        assertThat(pauses.notBefore(9_000)).isEqualTo(9_000);
        Map<String, Long> silentFrom = Map.of("n1", 8_500L);
        assertThat(pauses.notBefore(silentFrom)).isSameAs(silentFrom);
    }

    @Test
    void aRoundLaterThanTheThreshold_isAPause_fromWhichSilenceCountsAgain() {
        pauses.roundStarts(10_000);
        pauses.roundEnds(10_000);

        assertThat(pauses.roundStarts(13_000)).as("a 3 s SIGSTOP").isEqualTo(3_000);
        pauses.roundEnds(13_010);

        assertThat(pauses.notBefore(9_000)).as("a leadership that began before the pause").isEqualTo(13_000);
        assertThat(pauses.notBefore(14_000)).as("one that began after it").isEqualTo(14_000);
        assertThat(pauses.notBefore(Map.of("n1", 9_500L, "n2", 13_500L)))
                .containsExactlyInAnyOrderEntriesOf(Map.of("n1", 13_000L, "n2", 13_500L));
    }

    @Test
    void theTimeARoundTakes_isNotAPause() {
        pauses.roundStarts(10_000);
        // A round that waited 5 s for a commit (a majority unreachable) ends late; the next starts a tick later.
        pauses.roundEnds(15_000);
        assertThat(pauses.roundStarts(15_250)).isZero();
        assertThat(pauses.notBefore(9_000)).isEqualTo(9_000);
    }

    @Test
    void theThresholdMustBePositive() {
        assertThatThrownBy(() -> new DeciderPauses(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
