package dev.felix.cluster.relay;

/** What a lost event costs a relayed shard's subscribers, from how the stream keeps its events. */
public enum StreamKind {
    /** Kept in a log: a subscriber that missed events can be resumed from it. */
    DURABLE,
    /** Kept in memory on its leader: a missed event is announced (gap) or the subscriber resyncs. */
    EPHEMERAL,
    /**
     * Ephemeral and marked {@code no_replay} (presence, live positions): a lost event is only counted; its
     * subscribers are never fenced or closed, and it is still never delivered late.
     */
    EPHEMERAL_NO_REPLAY;

    /** Whether losing an event fences the subscriptions that missed it. */
    boolean fencesOnLoss() {
        return this != EPHEMERAL_NO_REPLAY;
    }
}
