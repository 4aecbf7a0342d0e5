package dev.felix.core.routing;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;

/** The answer to "who leads this shard (or cache)?". */
public sealed interface Leadership {

    /** This node leads: serve here. */
    record Here(long epoch) implements Leadership {
    }

    /** Another node leads: redirect there. */
    record Elsewhere(NodeRef leader, long epoch) implements Leadership {
    }

    /** Nobody can serve it now, for {@code reason}. */
    record Unavailable(FelixError reason) implements Leadership {
    }

    /** The single-node answer. */
    Here HERE = new Here(0);

    /** The error a client gets when it asked the wrong node, naming the leader ({@code what}: "shard t/n/s/0"). */
    static FelixError notLeader(String what, Elsewhere e) {
        return new FelixError(ErrorCode.NOT_LEADER, "this node does not lead " + what + "; node " + e.leader().nodeId()
                + " at " + e.leader().address() + " does (epoch " + e.epoch() + ")", -1,
                new FelixError.Leader(e.leader().nodeId(), e.leader().address(), e.epoch()));
    }
}
