package dev.felix.server.protocol;

import dev.felix.core.cache.CacheEntry;
import dev.felix.core.cache.Change;
import dev.felix.core.cache.SnapshotChunk;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.wire.BinaryWatchChanges;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The frames of a watch, encoded once and shared by every watch that writes them (ARCHITECTURE principle 5,
 * issue 12 item 5): a change's {@code watch_change} (JSON) or binary watch-change frame ({@code 0x0026}, to
 * watchers that negotiated {@code BINARY_WATCH}), and a snapshot's {@code watch_snapshot} chunks. Their bytes
 * depend on nothing a watcher negotiated beyond that choice of encoding, so with 100 mirrors encoding them per
 * watcher was 100 encodings per change, and 100 per snapshot chunk when the mirrors reconnect together.
 *
 * <p><b>Changes.</b> The cache offers the same {@link Change} instance to every watch, and the watches of a
 * connection are drained on its event loop, usually one after another. Each event-loop thread keeps a small
 * ring of the frames it encoded last, indexed by change offset and matched by the change's identity (so two
 * caches' changes with one offset never share a frame), one frame per encoding: the first watch to write a
 * change in an encoding encodes it, the others find it. A watch far behind the others misses and encodes its
 * own copy; that costs time, never correctness. Frames above {@link #MAX_SHARED_BYTES} are not kept, which
 * bounds the ring's memory ({@value #SLOTS} × 2 × {@value #MAX_SHARED_BYTES} bytes per event loop at most).
 *
 * <p><b>Snapshots.</b> Watches that start at the same snapshot of a cache poll the very same
 * {@link SnapshotChunk} instances (the cache shares one snapshot among them), so a chunk's frame is kept beside
 * it, in a map with weak keys shared by every event loop: it lives as long as some watch may still poll the
 * chunk, and then goes with it. Two event loops missing the same chunk at once both encode it (each counted).
 *
 * <p><b>Threads and buffers.</b> Changes: event-loop confined (one ring per thread). Snapshots: thread-safe.
 * Each call returns a new unpooled wrapper over the shared bytes; whoever writes it owns the wrapper, and
 * nobody modifies the bytes.
 */
final class WatchFrames {

    /** Frames remembered per event loop (a power of two). */
    static final int SLOTS = 1024;
    /** Largest change frame remembered. */
    static final int MAX_SHARED_BYTES = 8 << 10;

    private static final FastThreadLocal<WatchFrames> RING = new FastThreadLocal<>() {
        @Override
        protected WatchFrames initialValue() {
            return new WatchFrames();
        }
    };

    /** Snapshot chunk frames, while their chunk lives (weak keys; a chunk is equal only to its own content). */
    private static final Map<SnapshotChunk, byte[]> SNAPSHOTS = Collections.synchronizedMap(new WeakHashMap<>());

    private final Change[] changes = new Change[SLOTS];
    private final byte[][] json = new byte[SLOTS][];
    private final byte[][] binary = new byte[SLOTS][];

    private WatchFrames() {
    }

    /**
     * The frame of {@code c}, binary ({@code 0x0026}) or JSON: shared bytes if this thread encoded it lately,
     * else encoded now (and counted). A change the binary frame cannot carry goes as JSON.
     */
    static ByteBuf change(Change c, boolean binaryWatcher, BrokerMetrics metrics) {
        return Unpooled.wrappedBuffer(RING.get().bytes(c, binaryWatcher, metrics));
    }

    /** The {@code watch_snapshot} frame of {@code chunk}: encoded by the first watch to write it, then shared. */
    static ByteBuf snapshot(SnapshotChunk chunk, BrokerMetrics metrics) {
        byte[] frame = SNAPSHOTS.get(chunk);
        if (frame == null) {
            metrics.watchSnapshotEncodings.increment();
            List<dev.felix.wire.CacheEntry> entries = new ArrayList<>(chunk.entries().size());
            for (CacheEntry entry : chunk.entries()) {
                entries.add(new dev.felix.wire.CacheEntry(entry.key(), entry.value(), expiry(entry.expiresAtMillis())));
            }
            frame = WireCodec.encodeFrame(new Message.WatchSnapshot(chunk.offset(), entries, chunk.last()));
            SNAPSHOTS.put(chunk, frame);
        }
        return Unpooled.wrappedBuffer(frame);
    }

    private byte[] bytes(Change c, boolean binaryWatcher, BrokerMetrics metrics) {
        int slot = (int) (c.offset() & (SLOTS - 1));
        if (changes[slot] != c) {
            changes[slot] = c;
            json[slot] = null;
            binary[slot] = null;
        }
        boolean asBinary = binaryWatcher && binaryCarries(c);
        byte[][] kept = asBinary ? binary : json;
        if (kept[slot] != null) {
            return kept[slot];
        }
        Message.WatchChange m = new Message.WatchChange(c.offset(), c.key(), c.op().wireName(),
                c.op().removes() ? null : c.value(), c.op().removes() ? null : expiry(c.expiresAtMillis()));
        byte[] frame;
        if (asBinary) {
            metrics.watchChangeEncodingsBinary.increment();
            frame = WireCodec.encodeFrame(BinaryWatchChanges.of(m));
        } else {
            metrics.watchChangeEncodingsJson.increment();
            frame = WireCodec.encodeFrame(m);
        }
        if (frame.length <= MAX_SHARED_BYTES) {
            kept[slot] = frame;
        }
        return frame;
    }

    /** Whether {@code frame} (from {@link #change}) is a binary watch-change frame (its header flags are not 0). */
    static boolean isBinary(ByteBuf frame) {
        return frame.getUnsignedShort(frame.readerIndex() + 6) != 0;
    }

    /**
     * Whether the binary layout carries {@code c}: an op with a code (every op this broker makes has one) and a key
     * of at most 65535 UTF-8 bytes (str16). What it cannot carry goes as JSON, which a binary watcher also reads.
     */
    private static boolean binaryCarries(Change c) {
        String key = c.key();
        return BinaryWatchChanges.canCarryOp(c.op().wireName())
                && (key.length() <= 0xFFFF / 3 || key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 0xFFFF);
    }

    private static Long expiry(long expiresAtMillis) {
        return expiresAtMillis == CacheEntry.NEVER ? null : expiresAtMillis;
    }
}
