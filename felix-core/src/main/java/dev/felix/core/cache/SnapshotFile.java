package dev.felix.core.cache;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * A snapshot of a log cache: every live entry as of offset N (the changes below N), written atomically
 * (temporary file, fsync, rename, fsync of the directory) as {@code snapshot-<N as 20 digits>.snap}.
 *
 * <h2>Format (big-endian, version 1)</h2>
 * <pre>
 * header, 32 bytes
 *   0  4  magic              0x46584353 "FXCS"
 *   4  2  version            1
 *   6  2  flags              0 (anything else is refused)
 *   8  8  offset             N: the snapshot holds the effect of every change below N
 *  16  8  entry_count
 *  24  8  created_at_millis  informational
 * entry_count entries, least recently used first
 *   0  4  key_len            1 .. {@link ChangeCodec#MAX_KEY_BYTES}
 *   4  k  key                UTF-8
 *  4+k 8  expires_at_millis  absolute epoch ms; Long.MAX_VALUE = never
 * 12+k 4  value_len          0 .. bytes left in the file
 * 16+k v  value
 * trailer, 8 bytes
 *   0  4  magic              0x46584345 "FXCE"
 *   4  4  crc32              CRC-32 of every byte before this field (header, entries, trailer magic)
 * </pre>
 * A file is valid only if the header checks out, exactly {@code entry_count} entries parse within their
 * bounds (checked before anything is allocated), the trailer follows, the CRC matches and nothing follows
 * it. Anything else makes the whole file unusable: a snapshot is used entirely or not at all.
 *
 * <p>Stateless; thread-safe for distinct files.
 */
final class SnapshotFile {

    static final int MAGIC = 0x46584353;
    static final int TRAILER_MAGIC = 0x46584345;
    static final short VERSION = 1;
    static final int HEADER_BYTES = 32;
    static final int TRAILER_BYTES = 8;
    /** Smallest encoded entry: key length, one key byte, expiry, value length. */
    static final int MIN_ENTRY_BYTES = 4 + 1 + 8 + 4;
    static final String PREFIX = "snapshot-";
    static final String SUFFIX = ".snap";
    static final String TMP_SUFFIX = ".tmp";

    /** What a valid snapshot file holds. */
    record Contents(long offset, List<CacheEntry> entries) {
    }

    private SnapshotFile() {
    }

    static String fileName(long offset) {
        return PREFIX + String.format("%020d", offset) + SUFFIX;
    }

    /** The offset a snapshot file name stands for, or -1 when it is not a snapshot file name. */
    static long parseOffset(String fileName) {
        if (!fileName.startsWith(PREFIX) || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        String digits = fileName.substring(PREFIX.length(), fileName.length() - SUFFIX.length());
        if (digits.length() != 20) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Writes the snapshot at {@code offset} into {@code dir} atomically and durably; returns its path. Any
     * thread (the nodes are immutable where read).
     */
    static Path write(Path dir, long offset, List<EntryTable.Node> nodes, long nowMillis) throws IOException {
        Path file = dir.resolve(fileName(offset));
        Path tmp = dir.resolve(fileName(offset) + TMP_SUFFIX);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            CRC32 crc = new CRC32();
            OutputStream raw = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
            DataOutputStream out = new DataOutputStream(new CheckedOutputStream(raw, crc));
            out.writeInt(MAGIC);
            out.writeShort(VERSION);
            out.writeShort(0);
            out.writeLong(offset);
            out.writeLong(nodes.size());
            out.writeLong(nowMillis);
            for (EntryTable.Node n : nodes) {
                byte[] key = n.key.getBytes(StandardCharsets.UTF_8);
                out.writeInt(key.length);
                out.write(key);
                out.writeLong(n.expiresAt);
                out.writeInt(n.value.length);
                out.write(n.value);
            }
            out.writeInt(TRAILER_MAGIC);
            out.flush();
            DataOutputStream tail = new DataOutputStream(raw);
            tail.writeInt((int) crc.getValue());
            tail.flush();
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory(dir);
        return file;
    }

    /**
     * Reads and validates a snapshot file.
     *
     * @throws IOException          when the file cannot be read
     * @throws IllegalArgumentException naming the problem, when the file is not a valid snapshot
     */
    static Contents read(Path file) throws IOException {
        long size = Files.size(file);
        if (size < HEADER_BYTES + TRAILER_BYTES) {
            throw new IllegalArgumentException("snapshot " + file + " has " + size + " bytes, fewer than a header"
                    + " and a trailer");
        }
        CRC32 crc = new CRC32();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            DataInputStream in = new DataInputStream(new CheckedInputStream(raw, crc));
            long left = size;
            int magic = in.readInt();
            if (magic != MAGIC) {
                throw bad(file, "bad magic 0x" + Integer.toHexString(magic));
            }
            short version = in.readShort();
            if (version != VERSION) {
                throw bad(file, "version " + version + "; this build reads version " + VERSION);
            }
            short flags = in.readShort();
            if (flags != 0) {
                throw bad(file, "unknown flags 0x" + Integer.toHexString(flags));
            }
            long offset = in.readLong();
            long count = in.readLong();
            in.readLong(); // created_at_millis
            left -= HEADER_BYTES;
            if (offset < 0 || count < 0 || count > (left - TRAILER_BYTES) / MIN_ENTRY_BYTES) {
                throw bad(file, "offset " + offset + " / entry count " + count + " do not fit a file of " + size
                        + " bytes");
            }
            List<CacheEntry> entries = new ArrayList<>((int) Math.min(count, 1 << 16));
            for (long i = 0; i < count; i++) {
                int keyLen = in.readInt();
                left -= 4;
                if (keyLen < 1 || keyLen > ChangeCodec.MAX_KEY_BYTES || keyLen > left - TRAILER_BYTES) {
                    throw bad(file, "entry " + i + " has key length " + keyLen);
                }
                byte[] key = new byte[keyLen];
                in.readFully(key);
                long expiresAt = in.readLong();
                int valueLen = in.readInt();
                left -= keyLen + 12;
                if (valueLen < 0 || valueLen > left - TRAILER_BYTES) {
                    throw bad(file, "entry " + i + " has value length " + valueLen + " with " + left
                            + " bytes left");
                }
                byte[] value = new byte[valueLen];
                in.readFully(value);
                left -= valueLen;
                String k;
                try {
                    k = ChangeCodec.utf8(key, 0, keyLen, "entry " + i);
                } catch (IllegalArgumentException e) {
                    throw bad(file, e.getMessage());
                }
                entries.add(new CacheEntry(k, value, expiresAt));
            }
            int trailer = in.readInt();
            if (trailer != TRAILER_MAGIC) {
                throw bad(file, "bad trailer magic 0x" + Integer.toHexString(trailer));
            }
            long computed = crc.getValue();
            int stored = new DataInputStream(raw).readInt();
            if ((int) computed != stored) {
                throw bad(file, "checksum mismatch: stored 0x" + Integer.toHexString(stored) + ", computed 0x"
                        + Long.toHexString(computed));
            }
            if (raw.read() != -1) {
                throw bad(file, "bytes after the trailer");
            }
            return new Contents(offset, entries);
        } catch (EOFException e) {
            throw bad(file, "ends early");
        }
    }

    /** Makes renames and deletions in {@code dir} durable. */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private static IllegalArgumentException bad(Path file, String why) {
        return new IllegalArgumentException("snapshot " + file + " is invalid: " + why);
    }
}
