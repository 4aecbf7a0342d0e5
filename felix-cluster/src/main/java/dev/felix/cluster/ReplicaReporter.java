package dev.felix.cluster;

import java.util.List;

/**
 * Supplies this node's {@link ReplicaReport}s for a heartbeat. Called on the heartbeat thread; must be quick
 * (it reads in-memory progress, never a disk).
 */
@FunctionalInterface
public interface ReplicaReporter {
    List<ReplicaReport> reports();

    ReplicaReporter NONE = List::of;
}
