package dev.felix.server;

import dev.felix.server.protocol.PayloadBlocks;
import dev.felix.transport.DirectBuffers;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives memory back once the broker is idle. Under load Netty's allocator keeps the direct memory it pooled
 * (and the heap keeps what it grew to); with no client left nothing would ever release it. Once no client has
 * been connected for {@link #trimAfter} (default {@value #DEFAULT_TRIM_AFTER_SECONDS} s, or
 * {@code -Dfelix.idle_trim_after_ms}), it trims once per idle period:
 * <ul>
 * <li>with the pooled allocator, each event loop frees its thread-local buffer cache
 *     ({@code PooledByteBufAllocator.trimCurrentThreadCache}), so chunks that then hold nothing are released;</li>
 * <li>with Netty 4.2's default {@code adaptive} allocator, its large-buffer chunks are cycled
 *     ({@link #recycleLargeBufferChunks});</li>
 * <li>the memory of released buffers over 128 KiB kept for reuse is freed ({@link DirectBuffers#trimLargeBuffers});</li>
 * <li>each event loop lets its current block of pooled payloads go, and every payload slab with no block in use is
 *     freed ({@link PayloadBlocks#trim});</li>
 * <li>a garbage collection is requested: unreachable direct buffers are freed and G1 returns the heap it no
 *     longer needs to the operating system.</li>
 * </ul>
 * The trim runs only when no client is connected, so it never touches the hot path (see {@code docs/operations.md},
 * "Memory when idle"). Apart from it, every {@value PayloadBlocks#SPARE_DECAY_SECONDS} s, payload slabs whose blocks
 * no copy needed in that time are freed ({@link PayloadBlocks#freeUnusedSpares}), and every second the broker's
 * {@link PayloadPressure} check runs.
 *
 * <p><b>Threads.</b> One daemon timer thread checks every second and runs the trim; the pooled allocator's cache trims
 * and the payload blocks' current blocks run on the event loops (each lets its own go).
 */
public final class IdleMemory implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IdleMemory.class);
    static final long DEFAULT_TRIM_AFTER_SECONDS = 30;

    private final IntSupplier connections;
    private final EventLoopGroup eventLoops;
    private final PayloadBlocks payloadBlocks;
    private final Runnable eachSecond;
    private final ScheduledExecutorService timer;
    private final AtomicLong trims = new AtomicLong();
    private volatile long trimAfterNanos;
    /** Netty direct memory just before and just after the last trim. */
    private volatile long lastBefore = -1;
    private volatile long lastAfter = -1;
    /** When the broker was last seen with a client (or trimmed); timer thread. */
    private long busySince = System.nanoTime();
    private boolean trimmedThisIdle;

    /** {@code eachSecond} runs on the timer thread before each check (the broker's {@link PayloadPressure}). */
    IdleMemory(IntSupplier connections, EventLoopGroup eventLoops, PayloadBlocks payloadBlocks, Runnable eachSecond) {
        this.connections = connections;
        this.payloadBlocks = payloadBlocks;
        this.eachSecond = eachSecond;
        this.eventLoops = eventLoops;
        this.trimAfterNanos = TimeUnit.MILLISECONDS.toNanos(Long.getLong("felix.idle_trim_after_ms",
                DEFAULT_TRIM_AFTER_SECONDS * 1000));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "felix-idle-memory");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::check, 1, 1, TimeUnit.SECONDS);
    }

    /** How long the broker must be without clients before it trims. */
    public void trimAfter(Duration idle) {
        trimAfterNanos = idle.toNanos();
    }

    /** Trims done so far ({@code felix_idle_trims_total}). */
    public long trims() {
        return trims.get();
    }

    /** Netty direct memory just before / after the last trim (bytes; -1 before the first). */
    public long[] lastTrim() {
        return new long[] {lastBefore, lastAfter};
    }

    /** Direct memory Netty's allocator holds now ({@code felix_netty_direct_memory_bytes}), or -1 if unknown. */
    public static long nettyDirectMemory() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p ? p.metric().usedDirectMemory() : -1;
    }

    private void check() {
        try {
            eachSecond.run();
        } catch (RuntimeException | Error e) {
            LOG.warn("payload memory check failed", e); // logged, not thrown: a task that throws is never run again
        }
        payloadBlocks.freeUnusedSpares(); // under load too (acts once per window): the spares a burst left
        long now = System.nanoTime();
        if (connections.getAsInt() > 0) {
            busySince = now;
            trimmedThisIdle = false;
            return;
        }
        if (!trimmedThisIdle && now - busySince >= trimAfterNanos) {
            trimmedThisIdle = true;
            try {
                trim();
            } catch (RuntimeException | Error e) {
                // Logged, not thrown: a task that throws is never scheduled again, and later idle periods still trim.
                LOG.warn("idle memory trim failed", e);
            }
        }
    }

    private void trim() {
        long before = nettyDirectMemory();
        if (ByteBufAllocator.DEFAULT instanceof PooledByteBufAllocator) {
            for (EventExecutor loop : eventLoops) {
                loop.submit(() -> PooledByteBufAllocator.DEFAULT.trimCurrentThreadCache())
                        .awaitUninterruptibly(1_000);
            }
        } else if (ByteBufAllocator.DEFAULT instanceof AdaptiveByteBufAllocator adaptive) {
            recycleLargeBufferChunks(adaptive);
        }
        for (EventExecutor loop : eventLoops) { // each loop's current block of pooled payloads, then the spares
            loop.submit(payloadBlocks::dropCurrentBlock).awaitUninterruptibly(1_000);
        }
        long blocksFreed = payloadBlocks.trim();
        long largeFreed = DirectBuffers.trimLargeBuffers();
        System.gc(); // no client is connected: a pause here delays no one
        lastBefore = before;
        lastAfter = nettyDirectMemory();
        trims.incrementAndGet();
        LOG.info("no client for {} s: memory trimmed (netty direct memory {} KiB -> {} KiB; {} KiB of large buffers"
                + " and {} KiB of payload blocks kept for reuse freed)", TimeUnit.NANOSECONDS.toSeconds(trimAfterNanos),
                before >> 10, nettyDirectMemory() >> 10, largeFreed >> 10, blocksFreed >> 10);
    }

    /** Size of the buffers {@link #recycleLargeBufferChunks} allocates: above the largest size class, so large. */
    static final int RECYCLE_PROBE_BYTES = 64 << 10;
    /** Most probes one recycle holds: enough to use up three chunks of the largest size (8 MiB). */
    static final int RECYCLE_MAX_PROBES = 3 * (8 << 20) / RECYCLE_PROBE_BYTES;

    /**
     * Lets Netty's adaptive allocator drop the large-buffer chunks it keeps for reuse beyond its reuse limit. It
     * serves buffers above 16 KiB from chunks shared by all threads (up to 8 MiB each) and keeps a chunk handed back
     * while some of its buffers were still in use; it trims that cache only when another chunk is handed back, so
     * after a burst with many buffers in flight (shared delivery frames waiting for slow subscribers) it kept them
     * all once every client had gone (52 chunks, 104 MiB, in {@code ChurnLeakSoakTest}). Allocating large buffers
     * until a chunk is used up hands one back, and the allocator then frees the free chunks past its limit. It
     * stops as soon as the pool shrinks, or when it had to take a new chunk (there was nothing to free; that chunk
     * stays as the current one of a magazine, so repeated trims of an idle pool add at most a magazine's chunks).
     *
     * <p>Uses only the allocator's public API, but relies on how this version (Netty 4.2.18) manages its chunks:
     * with another behaviour it frees nothing and costs a few hundred allocations. {@code ChurnLeakSoakTest}
     * checks that it gives the memory back.
     *
     * @return the allocator's direct memory after it (bytes)
     */
    public static long recycleLargeBufferChunks(AdaptiveByteBufAllocator allocator) {
        long start = allocator.metric().usedDirectMemory();
        ByteBuf[] held = new ByteBuf[RECYCLE_MAX_PROBES];
        int n = 0;
        try {
            while (n < held.length) {
                ByteBuf probe = allocator.directBuffer(RECYCLE_PROBE_BYTES, RECYCLE_PROBE_BYTES);
                held[n++] = probe;
                if (allocator.metric().usedDirectMemory() != start) {
                    break;
                }
            }
        } finally {
            for (int i = 0; i < n; i++) {
                held[i].release();
            }
        }
        return allocator.metric().usedDirectMemory();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
