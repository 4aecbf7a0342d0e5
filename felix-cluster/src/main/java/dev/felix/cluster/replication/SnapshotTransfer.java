package dev.felix.cluster.replication;

import dev.felix.cluster.peer.PeerMessage;
import dev.felix.core.cache.CacheSnapshots;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a log cache's snapshot files from its leader to a replica, a part at a time: the leader's side reads a part
 * of its newest snapshot ({@link #read}); the replica's side assembles the parts under a temporary name and
 * installs the whole file once it validates ({@link Receiving}). A snapshot the leader deletes mid-transfer (it
 * compacted again) fails the transfer; the replica asks again for the newest.
 *
 * <p><b>Threads.</b> {@link #read} is stateless (the leader's I/O pool); a {@link Receiving} is confined to the
 * replica's lane.
 */
final class SnapshotTransfer {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotTransfer.class);

    private SnapshotTransfer() {
    }

    /** The leader's answer to {@code f}, at most {@code maxBytes} of file, read from the cache directory {@code dir}. */
    static PeerMessage read(Path dir, PeerMessage.SnapshotFetch f, int maxBytes, String label) {
        try {
            long offset = f.offset();
            if (offset < 0) {
                OptionalLong newest = CacheSnapshots.newest(dir);
                if (newest.isEmpty() || newest.getAsLong() <= f.after()) {
                    return PeerMessage.SnapshotPart.none();
                }
                offset = newest.getAsLong();
            }
            try (FileChannel ch = FileChannel.open(CacheSnapshots.file(dir, offset), StandardOpenOption.READ)) {
                long total = ch.size();
                long position = Math.min(f.position(), total);
                ByteBuffer buf = ByteBuffer.allocate((int) Math.min(maxBytes, total - position));
                while (buf.hasRemaining()) {
                    int n = ch.read(buf, position + buf.position());
                    if (n < 0) {
                        break;
                    }
                }
                byte[] bytes = new byte[buf.position()];
                buf.flip().get(bytes);
                return new PeerMessage.SnapshotPart(offset, position, total, bytes);
            }
        } catch (NoSuchFileException e) {
            return new PeerMessage.Refused(PeerMessage.Refusal.TRIMMED, -1, -1, "snapshot " + f.offset() + " of "
                    + label + " was compacted away; ask for the newest");
        } catch (IOException e) {
            LOG.warn("cannot read a snapshot of {} for a follower: {}", label, e.toString());
            return new PeerMessage.Refused(PeerMessage.Refusal.FAILED, -1, -1, "cannot read a snapshot of " + label
                    + ": " + e.getMessage());
        }
    }

    /** The replica's side of one transfer: parts appended in order to a temporary file. */
    static final class Receiving {
        private final Path dir;
        private final long offset;
        private final Path part;
        private long written;

        Receiving(Path dir, long offset) {
            this.dir = dir;
            this.offset = offset;
            this.part = CacheSnapshots.partFile(dir, offset);
        }

        long offset() {
            return offset;
        }

        long written() {
            return written;
        }

        /**
         * Appends {@code p} (which must continue the file where the last part ended); returns true once the file is
         * whole and installed.
         *
         * @throws IllegalArgumentException when the parts do not fit together or the whole file does not validate
         */
        boolean accept(PeerMessage.SnapshotPart p) throws IOException {
            if (p.offset() != offset || p.position() != written) {
                throw new IllegalArgumentException("snapshot part of " + p.offset() + " at " + p.position()
                        + " does not continue snapshot " + offset + " at " + written);
            }
            java.nio.file.Files.createDirectories(dir);
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                if (written == 0) {
                    ch.truncate(0);
                }
                ByteBuffer buf = ByteBuffer.wrap(p.bytes());
                while (buf.hasRemaining()) {
                    ch.write(buf, written + buf.position());
                }
            }
            written += p.bytes().length;
            if (written < p.total()) {
                return false;
            }
            CacheSnapshots.install(dir, offset, part);
            return true;
        }

        /** Drops what was assembled (the transfer failed or the replica stops). */
        void abandon() {
            try {
                java.nio.file.Files.deleteIfExists(part);
            } catch (IOException e) {
                LOG.debug("cannot remove {}: {}", part, e.toString());
            }
        }
    }
}
