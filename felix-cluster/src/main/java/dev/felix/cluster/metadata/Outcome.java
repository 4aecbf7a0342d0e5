package dev.felix.cluster.metadata;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import java.util.Objects;

/**
 * What applying a {@link Command} gave: done (with the resulting record) or refused (with a typed error). The
 * same on every node, since {@link ClusterState#apply} is deterministic; the Raft leader returns it to the
 * node that submitted the command. Immutable.
 */
sealed interface Outcome {

    /**
     * Applied. {@code value} is the record the command produced or touched: a
     * {@link dev.felix.cluster.NodeInfo}, {@link dev.felix.core.metadata.StreamRecord},
     * {@link dev.felix.core.metadata.CacheRecord}, {@link dev.felix.cluster.ShardPlacement}, or null.
     */
    record Done(Object value) implements Outcome {
    }

    /** Refused; nothing changed. */
    record Refused(FelixError error) implements Outcome {
        public Refused {
            Objects.requireNonNull(error, "error");
        }
    }

    static Outcome done(Object value) {
        return new Done(value);
    }

    static Outcome refused(ErrorCode code, String message) {
        return new Refused(FelixError.of(code, message));
    }
}
