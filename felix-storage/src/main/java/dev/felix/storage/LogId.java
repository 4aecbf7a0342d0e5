package dev.felix.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * <b>Immutable; thread-safe; touches no file.</b>
 *
 * <p>Names one shard's log: {@code tenant / namespace / stream / shard}, and computes its directory name
 * without touching the file system, so the broker can locate (and lazily open) a log on first use and boot
 * never scans stored data.
 *
 * <p>Directory name: {@code <tenant>_<namespace>_<stream>_<shard>-<fnv1a64 as 16 hex digits>}, followed by
 * {@code .<uid as 16 hex digits>} when {@code uid != 0}. Each of the
 * three name parts maps every character outside {@code [A-Za-z0-9-]} (dots too) to {@code _}, is cut to 32
 * characters, and becomes {@code _} when empty. The hash makes the name unique again: FNV-1a 64 (offset
 * basis {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3}) over
 * {@code u64be(len(tenant)) tenant u64be(len(ns)) ns u64be(len(stream)) stream u32be(shard)} with the raw
 * UTF-8 names. Example: {@code acme/default/orders/0} &rarr; {@code acme_default_orders_0-0d3aed4b998d2798}.
 *
 * <p><b>Stream uid.</b> A stream (or cache) deleted and created again under the same name must never see the
 * old data. Cluster metadata gives every incarnation a uid; a non-zero {@code uid} puts it in the directory
 * name ({@code acme_default_orders_0-0d3aed4b998d2798.00000000000004d2} for uid 1234), so a new incarnation
 * gets a new, empty directory. {@code uid == 0} is a legacy (pre-uid) log and keeps exactly the old name, so
 * existing data directories still open. The readable part never contains a dot, so the two forms cannot
 * collide. Delete a log directory with {@link LogDirectories#delete}.
 *
 * @param tenant    tenant id
 * @param namespace namespace
 * @param stream    stream name
 * @param shard     shard number, &ge; 0
 * @param uid       the stream's (or cache's) incarnation id; 0 = legacy, no uid in the directory name
 */
public record LogId(String tenant, String namespace, String stream, int shard, long uid) {
    /** Readable name parts are cut to this many characters. */
    private static final int MAX_PART_CHARS = 32;
    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    /** Separates the uid from the rest of the directory name. */
    public static final char UID_SEPARATOR = '.';

    public LogId {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(stream, "stream");
        if (shard < 0) {
            throw new IllegalArgumentException("shard must be >= 0, got " + shard);
        }
    }

    /** A legacy log id (uid 0): the directory name has no uid, exactly as before uids existed. */
    public LogId(final String tenant, final String namespace, final String stream, final int shard) {
        this(tenant, namespace, stream, shard, 0L);
    }

    /** The same log of another incarnation. */
    public LogId withUid(final long newUid) {
        return new LogId(tenant, namespace, stream, shard, newUid);
    }

    /**
     * The directory name, e.g. {@code acme_default_orders_0-0d3aed4b998d2798} (uid 0) or
     * {@code acme_default_orders_0-0d3aed4b998d2798.00000000000004d2} (uid 1234). Pure computation.
     */
    public String directoryName() {
        final String base = readable(tenant) + '_' + readable(namespace) + '_' + readable(stream) + '_' + shard
            + '-' + String.format("%016x", hash());
        return uid == 0 ? base : base + UID_SEPARATOR + String.format("%016x", uid);
    }

    /** {@code root.resolve(directoryName())}; pure computation, nothing is created or opened. */
    public Path resolve(final Path root) {
        return root.resolve(directoryName());
    }

    /** The label used in logs and errors: {@code tenant/namespace/stream/shard} (the uid is not shown). */
    public String label() {
        return tenant + '/' + namespace + '/' + stream + '/' + shard;
    }

    @Override
    public String toString() {
        return label();
    }

    /** FNV-1a 64 over the length-prefixed UTF-8 names and the big-endian shard number. */
    long hash() {
        long h = FNV_OFFSET_BASIS;
        for (final String part : new String[] {tenant, namespace, stream}) {
            final byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            h = fnv(h, bytes.length, Long.BYTES);
            for (final byte b : bytes) {
                h = (h ^ (b & 0xFF)) * FNV_PRIME;
            }
        }
        return fnv(h, shard, Integer.BYTES);
    }

    /** Feeds the low {@code width} bytes of {@code value}, most significant first. */
    private static long fnv(final long hash, final long value, final int width) {
        long h = hash;
        for (int shift = (width - 1) * 8; shift >= 0; shift -= 8) {
            h = (h ^ ((value >>> shift) & 0xFF)) * FNV_PRIME;
        }
        return h;
    }

    private static String readable(final String part) {
        final StringBuilder out = new StringBuilder(Math.min(part.length(), MAX_PART_CHARS));
        part.codePoints().limit(MAX_PART_CHARS).forEach(cp -> {
            final boolean keep = (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || cp == '-';
            out.append(keep ? (char) cp : '_');
        });
        return out.length() == 0 ? "_" : out.toString();
    }
}
