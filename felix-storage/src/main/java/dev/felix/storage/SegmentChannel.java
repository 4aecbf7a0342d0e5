package dev.felix.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/**
 * <b>Thread-safe; owned by one {@link Segment} (or one tool call), which closes it.</b>
 *
 * <p>One open file of a log, made safe against thread interrupts.
 *
 * <p><b>Why:</b> a {@link FileChannel} is an interruptible channel: when <em>any</em> thread is interrupted
 * inside a read, write or force, the JDK closes the channel for <em>every</em> thread. In a broker a reader
 * thread being interrupted (an executor shut down, a cancelled task) would then break the log for all
 * writers. This wrapper reopens the file after such a close (unless {@link #close()} was called) and retries
 * the operation, with the caller's interrupt flag cleared during the retry and restored afterwards. Every
 * operation here is idempotent (positioned reads and writes, force, truncate), so retrying is safe.
 *
 * <p><b>Concurrency:</b> thread-safe. Positioned reads may run concurrently with each other and with writes
 * to other positions; the log serialises writes and truncation itself.
 */
final class SegmentChannel implements ReadSource, Closeable {
    /** Bound on reopen-and-retry rounds for one operation (each needs a fresh interrupt to fail again). */
    private static final int MAX_REOPEN_ATTEMPTS = 8;

    /** Read and write, for segment and index files a log owns. */
    static final Set<OpenOption> READ_WRITE = Set.of(java.nio.file.StandardOpenOption.READ,
        java.nio.file.StandardOpenOption.WRITE);
    /** Read only, for tools. */
    static final Set<OpenOption> READ_ONLY = Set.of(java.nio.file.StandardOpenOption.READ);

    @FunctionalInterface
    private interface Op<T> {
        T apply(FileChannel channel) throws IOException;
    }

    private final Path path;
    private final Set<? extends OpenOption> reopenOptions;
    private final ChannelOpener opener;
    private volatile FileChannel channel;
    private volatile boolean closed;

    private SegmentChannel(final Path path, final FileChannel channel, final Set<? extends OpenOption> reopenOptions,
                           final ChannelOpener opener) {
        this.path = path;
        this.channel = channel;
        this.reopenOptions = reopenOptions;
        this.opener = opener;
    }

    /** Opens {@code path} with {@code options}; later reopens use {@code reopenOptions} (never CREATE_NEW). */
    static SegmentChannel open(final Path path, final Set<? extends OpenOption> options,
                               final Set<? extends OpenOption> reopenOptions, final ChannelOpener opener) throws IOException {
        return new SegmentChannel(path, opener.open(path, options), reopenOptions, opener);
    }

    Path path() {
        return path;
    }

    @Override
    public int read(final ByteBuffer dst, final long position) throws IOException {
        final int start = dst.position();
        return io(ch -> {
            dst.position(start);
            return ch.read(dst, position);
        });
    }

    @Override
    public void readFully(final ByteBuffer dst, final long position) throws IOException {
        final int start = dst.position();
        io(ch -> {
            dst.position(start);
            long pos = position;
            while (dst.hasRemaining()) {
                final int n = ch.read(dst, pos);
                if (n < 0) {
                    throw new java.io.EOFException(path + ": end of file at " + pos + " with " + dst.remaining()
                        + " bytes still expected");
                }
                pos += n;
            }
            return null;
        });
    }

    /** Writes all of {@code src} at {@code position} (a file needs one write call unless the OS splits it). */
    void writeFully(final ByteBuffer src, final long position) throws IOException {
        final int start = src.position();
        // Fast path (the append hot path): no retry machinery unless the channel was closed under us.
        try {
            final FileChannel ch = channel;
            long pos = position;
            while (src.hasRemaining()) {
                pos += ch.write(src, pos);
            }
            return;
        } catch (final ClosedChannelException e) {
            if (closed) {
                throw e;
            }
        }
        io(ch -> {
            src.position(start);
            long pos = position;
            while (src.hasRemaining()) {
                pos += ch.write(src, pos);
            }
            return null;
        });
    }

    /** fdatasync: forces file content (and the metadata needed to read it back) to the device. */
    void force() throws IOException {
        io(ch -> {
            ch.force(false);
            return null;
        });
    }

    void truncate(final long size) throws IOException {
        io(ch -> {
            ch.truncate(size);
            return null;
        });
    }

    long size() throws IOException {
        return io(FileChannel::size);
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }

    private <T> T io(final Op<T> op) throws IOException {
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                final FileChannel ch = channel;
                try {
                    return op.apply(ch);
                } catch (final ClosedChannelException e) {
                    if (closed || attempt >= MAX_REOPEN_ATTEMPTS) {
                        throw e;
                    }
                    // The JDK closed the channel because some thread was interrupted mid-operation. Clear our
                    // own flag (if it was us) so the retry is not refused immediately; restore it afterwards.
                    if (e instanceof ClosedByInterruptException || Thread.currentThread().isInterrupted()) {
                        interrupted |= Thread.interrupted();
                    }
                    reopen(ch);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void reopen(final FileChannel failed) throws IOException {
        if (channel != failed || closed) {
            return;
        }
        try {
            failed.close();
        } catch (final IOException ignored) {
            // already closed by the interrupt; nothing to release
        }
        channel = opener.open(path, reopenOptions);
    }
}
