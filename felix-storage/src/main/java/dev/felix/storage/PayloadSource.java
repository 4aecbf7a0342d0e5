package dev.felix.storage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The payloads of one append, read where they lie: heap arrays ({@link #of(List)}), or memory a caller lends for the
 * duration of the call (a broker's pooled buffer), which the log copies straight into its staging buffer, so appending
 * needs no array per payload.
 *
 * <p>Read only during {@link SegmentedLog#append(PayloadSource, long)}; the log keeps no reference to it.
 */
public interface PayloadSource {

    /** The number of payloads. */
    int count();

    /** The length of payload {@code i}, or -1 when it is missing (an array batch holding a null). */
    int length(int i);

    /** Copies payload {@code i} into {@code dst} at its position, advancing the position by its length. */
    void copyTo(int i, ByteBuffer dst);

    /** Payloads {@code from .. to-1} of this one, as a source of their own. */
    default PayloadSource range(int from, int to) {
        PayloadSource whole = this;
        return new PayloadSource() {
            @Override
            public int count() {
                return to - from;
            }

            @Override
            public int length(int i) {
                return whole.length(from + i);
            }

            @Override
            public void copyTo(int i, ByteBuffer dst) {
                whole.copyTo(from + i, dst);
            }
        };
    }

    /** Payloads held as arrays. */
    static PayloadSource of(List<byte[]> payloads) {
        return new PayloadSource() {
            @Override
            public int count() {
                return payloads.size();
            }

            @Override
            public int length(int i) {
                byte[] p = payloads.get(i);
                return p == null ? -1 : p.length;
            }

            @Override
            public void copyTo(int i, ByteBuffer dst) {
                dst.put(payloads.get(i));
            }
        };
    }
}
