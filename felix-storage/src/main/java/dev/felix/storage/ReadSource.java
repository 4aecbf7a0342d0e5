package dev.felix.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * <b>Implementations say whether they are thread-safe.</b>
 *
 * <p>Positioned reads from a file (pread semantics: the source has no shared position, so concurrent reads at
 * different positions do not interfere).
 */
@FunctionalInterface
interface ReadSource {

    /** Reads up to {@code dst.remaining()} bytes starting at {@code position}; -1 at end of file. */
    int read(ByteBuffer dst, long position) throws IOException;

    /** Fills {@code dst} completely from {@code position} or throws {@link EOFException}. */
    default void readFully(final ByteBuffer dst, final long position) throws IOException {
        long pos = position;
        while (dst.hasRemaining()) {
            final int n = read(dst, pos);
            if (n < 0) {
                throw new EOFException("end of file at position " + pos + " with " + dst.remaining() + " bytes still expected");
            }
            pos += n;
        }
    }
}
