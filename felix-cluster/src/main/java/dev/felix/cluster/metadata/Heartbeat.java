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
 * @param sequence    the heartbeat's number within its incarnation, counting from 1, so that the leader can tell a
 *                    late heartbeat from a newer one ({@link Liveness}); {@value #UNNUMBERED} from a node of an
 *                    earlier version, which numbered none
 * @param reports     the sender's reports on its replicas
 */
record Heartbeat(String nodeId, long incarnation, long sequence, List<ReplicaReport> reports) implements Json.Query {

    /** The sequence of a heartbeat from a node that numbers none: never taken for a late one. */
    static final long UNNUMBERED = 0;

    Heartbeat {
        Objects.requireNonNull(nodeId, "nodeId");
        if (sequence < UNNUMBERED) {
            throw new IllegalArgumentException("negative heartbeat sequence " + sequence);
        }
        reports = List.copyOf(reports);
    }
}
