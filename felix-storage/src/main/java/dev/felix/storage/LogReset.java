package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Stateless; the caller holds the log's append, flush and exclusive lifecycle locks (or is recovery).</b>
 *
 * <p>The file work of {@link SegmentedLog#resetTo(long)} and its completion at open, following the protocol in
 * {@link ResetMarkerDescriptor}: marker (commit point), new segment, old segments deleted, epoch history
 * cleared, marker deleted.
 */
final class LogReset {
    private static final Logger LOG = LoggerFactory.getLogger(LogReset.class);

    /** What a marker says. */
    record Marker(long targetOffset, long newSegmentId) {
    }

    /** An action that may fail with an I/O error. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    private LogReset() {
    }

    /** Step 1: writes the marker to its tmp name, forces it, renames it into place and forces the directory. */
    static void commit(final Path dir, final Marker m) throws IOException {
        final Path tmp = dir.resolve(ResetMarkerDescriptor.TMP_NAME);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
            final ByteBuffer b = encode(m);
            long pos = 0;
            while (b.hasRemaining()) {
                pos += ch.write(b, pos);
            }
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(ResetMarkerDescriptor.FILE_NAME), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        SegmentFiles.fsyncDirectory(dir);
    }

    /**
     * Steps 3&ndash;5: deletes every segment with a smaller id than the marker's, runs {@code clearEpochs},
     * deletes the marker; forces the directory after the deletions and at the end. Idempotent.
     */
    static void finish(final Path dir, final Marker m, final IoAction clearEpochs) throws IOException {
        for (final long id : SegmentFiles.listIds(dir)) {
            if (id < m.newSegmentId()) {
                Files.deleteIfExists(SegmentFiles.logPath(dir, id));
                Files.deleteIfExists(SegmentFiles.indexPath(dir, id));
            }
        }
        SegmentFiles.fsyncDirectory(dir);
        clearEpochs.run();
        Files.deleteIfExists(dir.resolve(ResetMarkerDescriptor.FILE_NAME));
        SegmentFiles.fsyncDirectory(dir);
    }

    /**
     * At open, before segments are listed: deletes a marker that never reached its commit point (the reset is
     * undone: the old log stays) and finishes a committed one (the log is the new, empty one).
     *
     * @return true when a committed reset was finished
     */
    static boolean recover(final Path dir, final LogConfig config, final StorageRuntime runtime) throws IOException {
        if (Files.deleteIfExists(dir.resolve(ResetMarkerDescriptor.TMP_NAME))) {
            LOG.warn("log {}: a reset was interrupted before its commit point; the log is unchanged", dir);
        }
        final Path file = dir.resolve(ResetMarkerDescriptor.FILE_NAME);
        if (!Files.exists(file)) {
            return false;
        }
        final Marker m = decode(file, Files.readAllBytes(file));
        final Path seg = SegmentFiles.logPath(dir, m.newSegmentId());
        if (Files.exists(seg) && Files.size(seg) >= SegmentHeaderDescriptor.LENGTH) {
            final byte[] head = new byte[SegmentHeaderDescriptor.LENGTH];
            try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ)) {
                final ByteBuffer b = ByteBuffer.wrap(head);
                while (b.hasRemaining() && ch.read(b, b.position()) >= 0) {
                    // fill the header
                }
            }
            final SegmentHeader.Decoded d = SegmentHeader.decode(head, head.length);
            if (!(d instanceof SegmentHeader.Valid) || ((SegmentHeader.Valid) d).header().baseOffset() != m.targetOffset()) {
                throw StorageException.corruption(d instanceof SegmentHeader.Invalid ? ((SegmentHeader.Invalid) d).kind()
                    : CorruptionKind.OFFSET_OUT_OF_ORDER, seg, 0, "segment " + m.newSegmentId() + " should start the reset log at offset "
                    + m.targetOffset() + " (" + ResetMarkerDescriptor.FILE_NAME + ") but its header says otherwise");
            }
        } else {
            Files.deleteIfExists(seg);
            Files.deleteIfExists(SegmentFiles.indexPath(dir, m.newSegmentId()));
            final Segment created = Segment.create(dir, m.newSegmentId(), m.targetOffset(), runtime.nowMicros(),
                config.indexSpacingBytes(), runtime.opener());
            try {
                created.log.force();
            } finally {
                created.closeQuietly();
            }
            SegmentFiles.fsyncDirectory(dir);
        }
        finish(dir, m, () -> EpochHistory.writeEmpty(dir, runtime.opener()));
        LOG.warn("log {}: finished a reset to offset {} that a crash interrupted", dir, m.targetOffset());
        return true;
    }

    static ByteBuffer encode(final Marker m) {
        final ByteBuffer b = ByteBuffer.allocate(ResetMarkerDescriptor.LENGTH);
        b.putInt(ResetMarkerDescriptor.MAGIC_OFFSET, ResetMarkerDescriptor.MAGIC);
        b.putShort(ResetMarkerDescriptor.VERSION_OFFSET, ResetMarkerDescriptor.VERSION);
        b.putShort(ResetMarkerDescriptor.FLAGS_OFFSET, (short) 0);
        b.putLong(ResetMarkerDescriptor.TARGET_OFFSET_OFFSET, m.targetOffset());
        b.putLong(ResetMarkerDescriptor.NEW_SEGMENT_ID_OFFSET, m.newSegmentId());
        b.putInt(ResetMarkerDescriptor.CRC_OFFSET, crc(b.array()));
        b.putInt(ResetMarkerDescriptor.RESERVED_OFFSET, 0);
        return b;
    }

    static Marker decode(final Path file, final byte[] bytes) {
        if (bytes.length != ResetMarkerDescriptor.LENGTH) {
            throw StorageException.corruption(CorruptionKind.TRUNCATED, file, 0, "reset marker has " + bytes.length
                + " bytes, expected " + ResetMarkerDescriptor.LENGTH);
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getInt(ResetMarkerDescriptor.MAGIC_OFFSET) != ResetMarkerDescriptor.MAGIC) {
            throw StorageException.corruption(CorruptionKind.BAD_MAGIC, file, 0, "reset marker magic");
        }
        if (b.getShort(ResetMarkerDescriptor.VERSION_OFFSET) != ResetMarkerDescriptor.VERSION) {
            throw StorageException.corruption(CorruptionKind.BAD_VERSION, file, ResetMarkerDescriptor.VERSION_OFFSET,
                "reset marker version " + b.getShort(ResetMarkerDescriptor.VERSION_OFFSET));
        }
        if (b.getInt(ResetMarkerDescriptor.CRC_OFFSET) != crc(bytes)) {
            throw StorageException.corruption(CorruptionKind.RECORD_CHECKSUM, file, ResetMarkerDescriptor.CRC_OFFSET,
                "reset marker crc mismatch");
        }
        final long target = b.getLong(ResetMarkerDescriptor.TARGET_OFFSET_OFFSET);
        final long id = b.getLong(ResetMarkerDescriptor.NEW_SEGMENT_ID_OFFSET);
        if (b.getShort(ResetMarkerDescriptor.FLAGS_OFFSET) != 0 || target < 0 || id < 0) {
            throw StorageException.corruption(CorruptionKind.BAD_FLAGS, file, ResetMarkerDescriptor.FLAGS_OFFSET,
                "reset marker flags or fields out of range (target " + target + ", segment " + id + ")");
        }
        return new Marker(target, id);
    }

    private static int crc(final byte[] bytes) {
        final CRC32 c = new CRC32();
        c.update(bytes, 0, ResetMarkerDescriptor.CRC_COVERED);
        return (int) c.getValue();
    }
}
