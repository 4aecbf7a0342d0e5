package dev.felix.cluster.metadata;

import dev.felix.cluster.ReplicaReport;
import java.util.List;
import java.util.Objects;

/**
 * A node's "I am alive" to the Raft leader, with its replica reports. Sent as a Ratis read-only query, so it
 * never enters the Raft log (see the package documentation). Immutable.
 *
 * @param nodeId      the sender
 * @param incarnation the sender's incarnation (changes with every start)
 * @param reports     the sender's reports on its replicas
 */
record Heartbeat(String nodeId, long incarnation, List<ReplicaReport> reports) implements Json.Query {
    Heartbeat {
        Objects.requireNonNull(nodeId, "nodeId");
        reports = List.copyOf(reports);
    }
}
