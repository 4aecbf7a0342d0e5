package dev.felix.wire;

import java.nio.ByteBuffer;

/**
 * The last few names (tenant, namespace, stream) one decoder read, so that a run of publish batches to the same
 * stream decodes its names once rather than into new strings for every batch (an allocation profile of the
 * broker put them at 8% of its event loop's allocation at 0 B, fanout 1). A cached name is returned only when its
 * bytes equal the ones read exactly, and only names that decoded as valid UTF-8 are kept, so a hit returns what a
 * fresh decode would. {@value #SLOTS} slots, replaced in turn.
 *
 * <p><b>Threads.</b> Not thread-safe: one per decoding stream or thread (the broker keeps one per publish stream,
 * on its event loop).
 */
public final class NameCache {
    static final int SLOTS = 4;

    private final byte[][] bytes = new byte[SLOTS][];
    private final String[] names = new String[SLOTS];
    private int next;

    /** The cached name whose UTF-8 bytes are {@code b[pos, pos + len)}, or null. Absolute reads only. */
    String find(ByteBuffer b, int pos, int len) {
        for (int i = 0; i < SLOTS; i++) {
            byte[] k = bytes[i];
            if (k != null && k.length == len && equal(k, b, pos)) {
                return names[i];
            }
        }
        return null;
    }

    /** Keeps {@code name}, decoded from {@code raw}, which the cache now owns (the caller must not change it). */
    void add(byte[] raw, String name) {
        bytes[next] = raw;
        names[next] = name;
        next = (next + 1) % SLOTS;
    }

    private static boolean equal(byte[] k, ByteBuffer b, int pos) {
        for (int i = 0; i < k.length; i++) {
            if (k[i] != b.get(pos + i)) {
                return false;
            }
        }
        return true;
    }
}
