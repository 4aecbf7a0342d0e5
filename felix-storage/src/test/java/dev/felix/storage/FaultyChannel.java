package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FileChannel} that delegates to a real one and fails on demand, plus the {@link ChannelOpener}
 * that hands them out. Records, per file, the size at the last successful force, so tests can check that
 * a flush future completed only after the bytes were forced.
 */
final class FaultyChannel extends FileChannel {

    /** Shared switches and observations for every channel one opener created. */
    static final class Faults implements ChannelOpener {
        /** Writes to .log files fail after this many more bytes have been written (-1: never). */
        final AtomicLong logWriteBudget = new AtomicLong(-1);
        /** Set: the next write to a .log file writes half its bytes, then throws. */
        volatile boolean partialWrite;
        volatile boolean failForce;
        volatile boolean failTruncate;
        final AtomicInteger forces = new AtomicInteger();
        final ConcurrentHashMap<Path, Long> forcedSize = new ConcurrentHashMap<>();

        @Override
        public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
            return new FaultyChannel(FileChannel.open(path, options), path, this);
        }

        long forcedSize(final Path p) {
            return forcedSize.getOrDefault(p, -1L);
        }
    }

    private final FileChannel delegate;
    private final Path path;
    private final Faults faults;

    private FaultyChannel(final FileChannel delegate, final Path path, final Faults faults) {
        this.delegate = delegate;
        this.path = path;
        this.faults = faults;
    }

    private boolean isLog() {
        return path.getFileName().toString().endsWith(".log");
    }

    private void beforeWrite(final ByteBuffer src, final long position) throws IOException {
        if (!isLog()) {
            return;
        }
        if (faults.partialWrite) {
            faults.partialWrite = false;
            final ByteBuffer half = src.duplicate();
            half.limit(half.position() + half.remaining() / 2);
            delegate.write(half, position);
            throw new IOException("injected: No space left on device (after a partial write)");
        }
        final long budget = faults.logWriteBudget.get();
        if (budget >= 0) {
            if (src.remaining() > budget) {
                throw new IOException("injected: No space left on device");
            }
            faults.logWriteBudget.addAndGet(-src.remaining());
        }
    }

    @Override
    public int write(final ByteBuffer src, final long position) throws IOException {
        beforeWrite(src, position);
        return delegate.write(src, position);
    }

    @Override
    public void force(final boolean metaData) throws IOException {
        if (faults.failForce) {
            throw new IOException("injected: fsync failed (EIO)");
        }
        final long size = delegate.size();
        delegate.force(metaData);
        faults.forces.incrementAndGet();
        faults.forcedSize.put(path, size);
    }

    @Override
    public FileChannel truncate(final long size) throws IOException {
        if (faults.failTruncate) {
            throw new IOException("injected: truncate failed");
        }
        delegate.truncate(size);
        return this;
    }

    @Override
    public int read(final ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(final ByteBuffer[] dsts, final int offset, final int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int write(final ByteBuffer src) throws IOException {
        beforeWrite(src, delegate.position());
        return delegate.write(src);
    }

    @Override
    public long write(final ByteBuffer[] srcs, final int offset, final int length) throws IOException {
        return delegate.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(final long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public long transferTo(final long position, final long count, final WritableByteChannel target) throws IOException {
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(final ReadableByteChannel src, final long position, final long count) throws IOException {
        return delegate.transferFrom(src, position, count);
    }

    @Override
    public int read(final ByteBuffer dst, final long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(final MapMode mode, final long position, final long size) throws IOException {
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(final long position, final long size, final boolean shared) throws IOException {
        return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(final long position, final long size, final boolean shared) throws IOException {
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
