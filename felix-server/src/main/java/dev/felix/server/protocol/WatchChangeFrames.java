package dev.felix.server.protocol;

import dev.felix.core.cache.CacheEntry;
import dev.felix.core.cache.Change;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * The {@code watch_change} frame of a cache change, encoded once and shared by every watch that delivers it
 * (ARCHITECTURE principle 5, issue 12 item 5). A change's frame is the same bytes for every watcher — it
 * depends on nothing a watcher negotiated — so it was wasteful to encode it (JSON, value in base64) once per
 * watcher: with 100 mirrors, 100 encodings per put on the broker's event loop.
 *
 * <p><b>How.</b> The cache offers the same {@link Change} instance to every watch, and the watches of a
 * connection are drained on its event loop, usually one after another. Each event-loop thread keeps a small
 * ring of the frames it encoded last, indexed by change offset and matched by the change's identity (so two
 * caches' changes with one offset never share a frame): the first watch to write a change encodes it, the
 * others find it. A watch far behind the others misses and encodes its own copy; that costs time, never
 * correctness. Frames above {@link #MAX_SHARED_BYTES} are not kept, which bounds the ring's memory
 * ({@value #SLOTS} × {@value #MAX_SHARED_BYTES} bytes per event loop at most).
 *
 * <p><b>Threads and buffers.</b> Event-loop confined (one ring per thread). Each call returns a new unpooled
 * wrapper over the shared bytes; whoever writes it owns the wrapper, and nobody modifies the bytes.
 */
final class WatchChangeFrames {

    /** Frames remembered per event loop (a power of two). */
    static final int SLOTS = 1024;
    /** Largest frame remembered. */
    static final int MAX_SHARED_BYTES = 8 << 10;

    private static final FastThreadLocal<WatchChangeFrames> RING = new FastThreadLocal<>() {
        @Override
        protected WatchChangeFrames initialValue() {
            return new WatchChangeFrames();
        }
    };

    private final Change[] changes = new Change[SLOTS];
    private final byte[][] frames = new byte[SLOTS][];

    private WatchChangeFrames() {
    }

    /** The frame of {@code c}: shared bytes if this thread encoded it lately, else encoded now (and counted). */
    static ByteBuf frame(Change c, BrokerMetrics metrics) {
        return Unpooled.wrappedBuffer(RING.get().bytes(c, metrics));
    }

    private byte[] bytes(Change c, BrokerMetrics metrics) {
        int slot = (int) (c.offset() & (SLOTS - 1));
        if (changes[slot] == c) {
            return frames[slot];
        }
        metrics.watchChangeEncodings.increment();
        byte[] frame = WireCodec.encodeFrame(new Message.WatchChange(c.offset(), c.key(), c.op().wireName(),
                c.op().removes() ? null : c.value(),
                c.op().removes() || c.expiresAtMillis() == CacheEntry.NEVER ? null : c.expiresAtMillis()));
        if (frame.length <= MAX_SHARED_BYTES) {
            changes[slot] = c;
            frames[slot] = frame;
        }
        return frame;
    }
}
