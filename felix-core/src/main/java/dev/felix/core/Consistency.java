package dev.felix.core;

import java.util.Locale;

/**
 * When a replicated stream shard (or log-backed cache) acknowledges a batch and lets readers see it.
 * Only meaningful in a cluster; a single node is its own majority, so both behave alike there.
 */
public enum Consistency {
    /**
     * Acknowledged from the leader's log alone (durable there as the fsync policy says). Lowest latency; if
     * the leader is lost before its followers copied a batch, no replica can take over (nothing proves one
     * holds every acknowledged record): the shard is unavailable until the leader returns with its disk,
     * or hands leadership over cleanly.
     */
    LEADER,
    /**
     * Acknowledged once a majority of the replicas holds the batch (forced to disk under {@code on_commit});
     * a replica of a majority can take over when the leader is lost. A batch that reaches no majority within
     * the quorum window is refused with {@code quorum_timeout} but stays in the leader's log.
     */
    QUORUM;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    public String wireName() {
        return wireName;
    }

    /** The consistency named {@code name} ({@code leader} or {@code quorum}). */
    public static Consistency parse(String name) {
        for (Consistency c : values()) {
            if (c.wireName.equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown consistency '" + name + "'; expected leader or quorum");
    }
}
