package dev.felix.core.writer;

import java.util.Objects;

/**
 * Names the log a writer opens, for whoever chooses its {@link CommitGate}: a stream shard's or a cache's.
 *
 * @param kind  stream shard or cache
 * @param name  {@code tenant/namespace/stream} or {@code tenant/namespace/cache}
 * @param uid   the resource's uid from metadata (0 for a single node's legacy or first-use resource)
 * @param shard the shard index; 0 for a cache
 */
public record LogRef(Kind kind, String name, long uid, int shard) {

    /** What a {@link LogRef} names. */
    public enum Kind {
        STREAM,
        CACHE
    }

    public LogRef {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return kind == Kind.STREAM ? name + "/" + shard : name;
    }
}
