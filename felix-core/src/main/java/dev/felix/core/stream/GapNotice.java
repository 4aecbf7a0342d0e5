package dev.felix.core.stream;

import java.util.Locale;

/**
 * The subscriber missed the offsets {@code from..to} (inclusive) of a shard, for {@code reason}.
 * It is delivered in order, just before the first event after the gap. An {@code incarnation} gap is
 * the exception: its range is in the numbering of the shard's earlier incarnation ({@code to} is
 * {@link Long#MAX_VALUE}: everything from {@code from} on was lost) and the events after it start the
 * new incarnation's numbering.
 */
public record GapNotice(int shard, long from, long to, Reason reason) implements Delivery {

    /** Why events were missed. The wire name is stable. */
    public enum Reason {
        /** The subscriber's queue was full under {@code drop_new} or {@code drop_old}. */
        QUEUE_OVERFLOW,
        /** The events were removed by retention (or left the in-memory ring) before they were read. */
        RETENTION,
        /** An ephemeral shard restarted and its memory was lost. */
        INCARNATION,
        /** The client's own receive queue was full (reported by the SDK, never by the broker). */
        CLIENT_QUEUE_OVERFLOW,
        /** The events are damaged on disk (a checksum does not verify) and can never be served. */
        CORRUPTION,
        /**
         * A node serving the subscription through a cross-node relay lost these events (its relay fell behind:
         * a full worker queue or a missed delivery deadline).
         */
        RELAY_LAG;

        private final String wireName = name().toLowerCase(Locale.ROOT);

        public String wireName() {
            return wireName;
        }

        /** Parses a wire name; unknown names (from a newer broker) map to {@link #QUEUE_OVERFLOW}. */
        public static Reason fromWireName(String name) {
            for (Reason r : values()) {
                if (r.wireName.equals(name)) {
                    return r;
                }
            }
            return QUEUE_OVERFLOW;
        }
    }

    public GapNotice {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("bad gap range " + from + ".." + to);
        }
    }

    /**
     * Number of events missed; -1 when unknown (an {@code incarnation} gap covers "from {@code from} to
     * the end of the earlier incarnation", {@code to} = {@link Long#MAX_VALUE}).
     */
    public long missed() {
        return to == Long.MAX_VALUE ? -1 : to - from + 1;
    }

    /** This gap extended to cover {@code other}, which must start right after it. */
    GapNotice extendTo(long newTo) {
        return new GapNotice(shard, from, newTo, reason);
    }

    @Override
    public int eventCount() {
        return 0;
    }

    @Override
    public long payloadBytes() {
        return 0;
    }
}
