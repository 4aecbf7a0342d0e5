package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * <b>Thread-safe; one holder per data directory per JVM, for the life of the broker using it.</b>
 *
 * <p>An exclusive lock on a broker's data directory, so a second broker started on the same directory refuses
 * to start instead of writing the same logs (two writers overwrite each other's acknowledged records). The lock
 * is an OS file lock ({@link FileChannel#tryLock()}) on {@code <data_dir>/}{@value DataDirLockDescriptor#FILE_NAME},
 * held through an open file for as long as the holder keeps this object: the kernel releases it when the
 * process exits, however it exits ({@code kill -9} included), so a crashed broker never blocks the next start.
 * The holder writes its pid into the file ({@link DataDirLockDescriptor}) so the refusal can name it.
 *
 * <p><b>Within one JVM</b> the OS lock cannot tell two holders apart (POSIX locks belong to the process, and
 * closing any descriptor of the file would release it), so holders are also tracked in a JVM-wide table by
 * real path: a second {@link #acquire} in the same process is refused without touching the file.
 *
 * <p>Usage: {@code try (DataDirLock lock = DataDirLock.acquire(dataDir)) { ... run the broker ... }}.
 */
public final class DataDirLock implements AutoCloseable {
    /** Holders in this JVM, by real path of the directory. */
    private static final Map<Path, DataDirLock> HELD = new ConcurrentHashMap<>();

    private final Path directory;
    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final long pid;
    private volatile boolean released;

    private DataDirLock(final Path directory, final Path file, final FileChannel channel, final FileLock lock,
                        final long pid) {
        this.directory = directory;
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.pid = pid;
    }

    /**
     * Locks {@code dataDir} (which must exist) for this process.
     *
     * @throws StorageException {@link StorageErrorCode#DIRECTORY_LOCKED} when another process (or another holder
     *                          in this one) holds it: the message names the directory and the holder's pid, e.g.
     *                          {@code data_dir /x is in use by another felix process (pid 1234); stop it or
     *                          choose another --data-dir}; {@link StorageErrorCode#IO} when the lock file cannot be
     *                          opened or written (the message names it)
     */
    public static DataDirLock acquire(final Path dataDir) {
        final Path real;
        try {
            real = dataDir.toRealPath();
        } catch (final IOException e) {
            throw StorageException.io("data_dir " + dataDir + " cannot be locked: it does not exist or cannot be read",
                dataDir, e);
        }
        final Path file = real.resolve(DataDirLockDescriptor.FILE_NAME);
        final long self = ProcessHandle.current().pid();
        synchronized (HELD) {
            final DataDirLock inProcess = HELD.get(real);
            if (inProcess != null) {
                throw StorageException.directoryLocked(file, self, "data_dir " + dataDir + " is in use by another felix "
                    + "broker in this process (pid " + self + "); stop it or choose another --data-dir");
            }
            FileChannel ch = null;
            try {
                ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                final FileLock lock;
                try {
                    lock = ch.tryLock();
                } catch (final OverlappingFileLockException sameJvm) {
                    // Something else in this JVM locked the file. Closing our descriptor would release its POSIX
                    // lock too, so this one descriptor is deliberately left open.
                    ch = null;
                    throw refused(dataDir, file, self, " in this process");
                }
                if (lock == null) {
                    final long holder = readPid(ch);
                    throw refused(dataDir, file, holder, "");
                }
                final byte[] text = (DataDirLockDescriptor.FIRST_LINE + "\n" + DataDirLockDescriptor.PID_KEY + " " + self
                    + "\n" + DataDirLockDescriptor.SINCE_KEY + " " + Instant.now() + "\n" + DataDirLockDescriptor.DIR_KEY
                    + " " + real + "\n").getBytes(StandardCharsets.US_ASCII);
                ch.truncate(0);
                final ByteBuffer b = ByteBuffer.wrap(text);
                long pos = 0;
                while (b.hasRemaining()) {
                    pos += ch.write(b, pos);
                }
                ch.force(true);
                final DataDirLock held = new DataDirLock(real, file, ch, lock, self);
                HELD.put(real, held);
                return held;
            } catch (final IOException e) {
                closeQuietly(ch);
                throw StorageException.io("data_dir " + dataDir + " cannot be locked (lock file "
                    + file + ")", file, e);
            } catch (final RuntimeException e) {
                closeQuietly(ch); // our descriptor only: closing it releases no lock we do not hold
                throw e;
            }
        }
    }

    private static StorageException refused(final Path dataDir, final Path file, final long pid, final String where) {
        return StorageException.directoryLocked(file, pid, "data_dir " + dataDir + " is in use by another felix process"
            + where + " (pid " + (pid < 0 ? "unknown" : Long.toString(pid)) + "); stop it or choose another --data-dir");
    }

    /** The holder's pid from the lock file, or -1 when it cannot be read. */
    static long readPid(final FileChannel ch) {
        try {
            final ByteBuffer b = ByteBuffer.allocate(DataDirLockDescriptor.MAX_READ_BYTES);
            long pos = 0;
            int n;
            while (b.hasRemaining() && (n = ch.read(b, pos)) > 0) {
                pos += n;
            }
            final String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII);
            for (final String line : text.split("\n")) {
                final String[] kv = line.trim().split(" ", 2);
                if (kv.length == 2 && kv[0].equals(DataDirLockDescriptor.PID_KEY)) {
                    return Long.parseLong(kv[1].trim());
                }
            }
        } catch (final IOException | NumberFormatException unreadable) {
            // the holder is named as unknown
        }
        return -1;
    }

    /** The locked directory (real path). */
    public Path directory() {
        return directory;
    }

    /** The lock file. */
    public Path file() {
        return file;
    }

    /** This process's pid, written into the lock file. */
    public long pid() {
        return pid;
    }

    /** Releases the lock (the file stays, with its now stale text). Idempotent. */
    @Override
    public void close() {
        synchronized (HELD) {
            if (released) {
                return;
            }
            released = true;
            HELD.remove(directory, this);
            try {
                lock.release();
            } catch (final IOException ignored) {
                // closing the channel below releases it too
            }
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(final FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException ignored) {
                // nothing more to release
            }
        }
    }

    @Override
    public String toString() {
        return "DataDirLock{" + directory + ", pid " + pid + (released ? ", released" : "") + '}';
    }
}
