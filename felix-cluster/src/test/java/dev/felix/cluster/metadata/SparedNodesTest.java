package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link SparedNodes}: each silence is new once, however many rounds spare the node. */
class SparedNodesTest {

    private final SparedNodes spared = new SparedNodes();

    @Test
    void aNodeSparedRoundAfterRound_isNewOnce() {
        assertThat(spared.round(Set.of("b"))).containsExactly("b");
        assertThat(spared.round(Set.of("b"))).isEmpty();
        assertThat(spared.round(Set.of("b", "c"))).containsExactly("c");
        assertThat(spared.round(Set.of("b", "c"))).isEmpty();
    }

    @Test
    void aNodeSparedAgainAfterARoundWithout_isNewAgain() {
        spared.round(Set.of("b"));
        assertThat(spared.round(Set.of())).as("b heartbeated, or was declared down").isEmpty();
        assertThat(spared.round(Set.of("b"))).as("a new silence").containsExactly("b");
    }

    @Test
    void afterAReset_everySparedNodeIsNew() {
        spared.round(Set.of("b", "c"));
        spared.reset(); // this node stopped leading, or leads a new term
        assertThat(spared.round(Set.of("b", "c"))).containsExactlyInAnyOrder("b", "c");
    }
}
