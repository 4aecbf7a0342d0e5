package dev.felix.core;

/** Where a subscription starts reading a shard. */
public sealed interface StartPosition {

    /** Only events published after the subscription is registered. */
    record Latest() implements StartPosition {
    }

    /** The oldest event still retained. */
    record Earliest() implements StartPosition {
    }

    /** This offset: the first event not yet seen (resume with last handled + 1). */
    record AtOffset(long offset) implements StartPosition {
        public AtOffset {
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, was " + offset);
            }
        }
    }

    StartPosition LATEST = new Latest();
    StartPosition EARLIEST = new Earliest();

    static StartPosition at(long offset) {
        return new AtOffset(offset);
    }
}
