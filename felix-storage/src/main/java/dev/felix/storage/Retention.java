package dev.felix.storage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * <b>Stateless; thread-safe.</b>
 *
 * <p>The retention rule, as a pure function of a log state and the time: which sealed head segments go.
 *
 * <pre>
 * total = bytes of all segments
 * for head in sealed segments, oldest first:
 *     over_size = retentionBytes set AND total &gt; retentionBytes
 *     too_old   = retentionAge set AND now - newest record timestamp of head &gt; retentionAge
 *                 (unknown timestamp: keep)
 *     if neither: stop
 *     delete head; total -= its size
 * </pre>
 *
 * Whole segments only, from the head only, never the active segment; age comes from record timestamps,
 * not file times.
 */
final class Retention {
    private Retention() {
    }

    /** Sealed head segments to delete, oldest first. */
    static List<Segment> victims(final LogState st, final LogConfig config, final long nowMicros) {
        final long maxBytes = config.retentionBytes().orElse(Long.MAX_VALUE);
        final long maxAgeMicros = config.retentionAge().map(Retention::micros).orElse(Long.MAX_VALUE);
        long total = st.totalBytes();
        final List<Segment> out = new ArrayList<>();
        for (final Segment head : st.sealed()) {
            final boolean overSize = total > maxBytes;
            final long newest = head.lastTimestampMicros();
            final boolean tooOld = maxAgeMicros != Long.MAX_VALUE && newest != Long.MIN_VALUE
                && nowMicros - newest > maxAgeMicros;
            if (!overSize && !tooOld) {
                break;
            }
            out.add(head);
            total -= head.size();
        }
        return out;
    }

    /** Duration in microseconds, saturating instead of overflowing for absurdly long ages. */
    static long micros(final Duration d) {
        try {
            return Math.addExact(Math.multiplyExact(d.getSeconds(), 1_000_000L), d.getNano() / 1_000);
        } catch (final ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
