package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.NettyRuntime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link IdleMemory#recycleLargeBufferChunks}: Netty's adaptive allocator keeps the large-buffer chunks of a burst
 * (handed back to it while their buffers were still in use) after every buffer is released, and the recycle lets it
 * free them. Each test uses an allocator of its own, so what it holds is only what the test did.
 */
class LargeBufferRecycleTest {

    /** A burst's buffers: above the allocator's largest size class (16 KiB), so served from its large chunks. */
    private static final int BUFFER_BYTES = 64 << 10;
    /** The chunks a fresh allocator makes for such buffers: eight of them each. */
    private static final int CHUNK_BYTES = 8 * BUFFER_BYTES;
    /** Free chunks the allocator's reuse cache keeps (Netty's default: twice the processors, at least 2). */
    private static final int REUSE_LIMIT = Math.max(2, 2 * NettyRuntime.availableProcessors());
    /** In flight at once: 32 chunks more than the reuse cache keeps. */
    private static final int BURST = (REUSE_LIMIT + 32) * CHUNK_BYTES / BUFFER_BYTES;

    @Test
    void chunksKeptAfterABurst_areFreedByTheRecycle() {
        AdaptiveByteBufAllocator allocator = new AdaptiveByteBufAllocator(true);
        long burst = burstThenRelease(allocator);

        long kept = used(allocator);
        assertThat(kept).as("what the allocator keeps once the burst's %d KiB of buffers are released", burst >> 10)
                .isGreaterThanOrEqualTo(burst / 2);

        long after = IdleMemory.recycleLargeBufferChunks(allocator);
        assertThat(after).as("returned by the recycle").isEqualTo(used(allocator));
        // The reuse cache's chunks, the magazine's current and next one, and one taken by the recycle.
        assertThat(after).as("kept after the recycle (%d KiB before it)", kept >> 10)
                .isLessThanOrEqualTo((long) (REUSE_LIMIT + 3) * CHUNK_BYTES);
    }

    @Test
    void anAllocatorHoldingLittle_staysSmall() {
        AdaptiveByteBufAllocator allocator = new AdaptiveByteBufAllocator(true);
        allocator.directBuffer(BUFFER_BYTES, BUFFER_BYTES).release();
        long before = used(allocator);

        long after = IdleMemory.recycleLargeBufferChunks(allocator);
        assertThat(after).as("at most one more chunk than the %d KiB before", before >> 10)
                .isLessThanOrEqualTo(2 * before);
    }

    /** Allocates {@link #BURST} large buffers at once, then releases them all; returns the bytes they held. */
    private static long burstThenRelease(AdaptiveByteBufAllocator allocator) {
        List<ByteBuf> live = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            live.add(allocator.directBuffer(BUFFER_BYTES, BUFFER_BYTES));
        }
        live.forEach(ByteBuf::release);
        return (long) BURST * BUFFER_BYTES;
    }

    private static long used(AdaptiveByteBufAllocator allocator) {
        return allocator.metric().usedDirectMemory();
    }
}
