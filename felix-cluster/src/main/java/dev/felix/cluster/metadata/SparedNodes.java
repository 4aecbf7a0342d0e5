package dev.felix.cluster.metadata;

import java.util.HashSet;
import java.util.Set;

/**
 * Which nodes the Raft leader's decider currently leaves up for their Raft answers alone ({@link
 * FailoverDecider.Round#spared}), so that each silence is counted and logged once however many rounds it lasts. A
 * node spared again after it heartbeated, was declared down, or after this node stopped leading ({@link #reset}) is a
 * new silence.
 *
 * <p><b>Threads.</b> The decider thread's alone.
 */
final class SparedNodes {

    private Set<String> spared = Set.of();

    /** This round's spared nodes; returns those the previous round did not spare. */
    Set<String> round(Set<String> now) {
        Set<String> fresh = new HashSet<>(now);
        fresh.removeAll(spared);
        spared = Set.copyOf(now);
        return fresh;
    }

    /** This node stopped leading, or leads a new term: every silence after this is new. */
    void reset() {
        spared = Set.of();
    }
}
