package dev.felix.wire;

/**
 * Where a subscription starts ({@code subscribe.start}). Externally tagged on the wire:
 * {@code "latest"}, {@code "earliest"} or {@code {"offset":n}} with {@code n} a u64.
 *
 * <p>Leaving {@code start} out is equivalent to {@link #LATEST} upstream but takes its older
 * tail-only code path.
 */
public sealed interface StartPosition {
    /** The live tail. */
    StartPosition LATEST = new Latest();
    /** The oldest retained offset (not necessarily 0). */
    StartPosition EARLIEST = new Earliest();

    /** A specific offset: the first record not yet seen (resume with last handled + 1). */
    static StartPosition offset(long offset) {
        return new AtOffset(offset);
    }

    /** {@code "latest"}. */
    record Latest() implements StartPosition {
    }

    /** {@code "earliest"}. */
    record Earliest() implements StartPosition {
    }

    /**
     * {@code {"offset":n}}.
     *
     * @param offset u64, unsigned semantics
     */
    record AtOffset(long offset) implements StartPosition {
        @Override
        public String toString() {
            return "AtOffset[offset=" + Long.toUnsignedString(offset) + "]";
        }
    }
}
