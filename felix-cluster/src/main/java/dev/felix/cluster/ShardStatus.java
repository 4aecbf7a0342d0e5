package dev.felix.cluster;

/** Whether a shard can be served. */
public enum ShardStatus {
    /** Its leader is up: publishes and subscribes go there. */
    ONLINE,
    /**
     * Nobody may serve it now ({@link ShardPlacement#reason()} says why, in the exact words clients get):
     * e.g. a {@code leader}-consistency shard whose leader is gone without a hand-off, or a {@code quorum}
     * shard without a majority of replicas reporting.
     */
    UNAVAILABLE
}
