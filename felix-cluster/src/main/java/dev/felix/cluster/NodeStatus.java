package dev.felix.cluster;

/** Liveness of a node as the cluster decided it (a transition committed through Raft). */
public enum NodeStatus {
    /** Heartbeating within the failure timeout. */
    UP,
    /** Missed heartbeats for the failure timeout: its leaderships are failed over (as consistency allows). */
    DOWN
}
