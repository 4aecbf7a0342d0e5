package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link PayloadBlocks} and {@link SpareBlocks}: the blocks pooled payloads are copied into, cut from slabs, are reused
 * once every region in them is released, not freed, by the same broker or the next one in the process; slabs whose
 * blocks no copy needed for a whole window are freed, the idle trim frees every slab with no block in use; each copying
 * thread fills its own block; close hands the threads' blocks back, and a block in use at close goes back at its last
 * release.
 */
class PayloadBlocksTest {

    private final LongAdder held = new LongAdder();

    /** One event of {@code size} bytes of {@code fill} as it lies in a frame: length prefix, then the bytes. */
    private static ByteBuffer event(int size, byte fill) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 + size);
        b.putInt(size);
        while (b.hasRemaining()) {
            b.put(fill);
        }
        return b.flip();
    }

    private PooledPayloads copyEvent(PayloadBlocks blocks, int size, byte fill) {
        ByteBuffer frame = event(size, fill);
        return blocks.copy(frame, 0, frame.remaining(), held);
    }

    private static void assertEvent(PooledPayloads p, int size, byte fill) {
        assertThat(p.lengthAt(0)).isEqualTo(size);
        byte[] payload = p.payloadAt(0);
        for (byte b : payload) {
            assertThat(b).isEqualTo(fill);
        }
    }

    @Test
    void copy_readsTheEventsFromDirectAndHeapFrames_leavesTheFrameAsItWas_andRefusesARangeOutsideIt() {
        PayloadBlocks blocks = new PayloadBlocks(new SpareBlocks(1 << 10, 8 << 10));
        for (boolean direct : new boolean[] {true, false}) { // by address, and through buffers
            ByteBuffer whole = direct ? ByteBuffer.allocateDirect(16 + 104) : ByteBuffer.allocate(16 + 104);
            whole.position(16);
            whole.putInt(100);
            while (whole.hasRemaining()) {
                whole.put((byte) 7);
            }
            ByteBuffer frame = whole.position(10).limit(16 + 104); // the event starts 6 bytes into the frame
            PooledPayloads p = blocks.copy(frame, 6, 104, held);
            assertThat(frame.position()).isEqualTo(10);
            assertThat(frame.limit()).isEqualTo(120);
            assertEvent(p, 100, (byte) 7);
            p.release();
            assertThatThrownBy(() -> blocks.copy(frame, 6, 105, held))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> blocks.copy(frame, -1, 10, held)).isInstanceOf(IndexOutOfBoundsException.class);
        }
        assertThat(held.sum()).as("a refused copy holds nothing").isZero();
        blocks.close();
        assertThat(blocks.spareBytes()).as("every block back").isEqualTo(8 << 10);
        assertThat(blocks.trim()).as("the slab freed").isEqualTo(8 << 10);
    }

    @Test
    void releasedBlocks_areReusedForTheNextCopies_notAllocatedAgain() {
        SpareBlocks spares = new SpareBlocks(1 << 10, 8 << 10); // slabs of eight blocks
        PayloadBlocks blocks = new PayloadBlocks(spares);
        List<PooledPayloads> ring = new ArrayList<>();
        for (int i = 0; i < 50; i++) { // 50 events of 100 bytes: 5,000 bytes in five blocks of 1 KiB
            ring.add(copyEvent(blocks, 96, (byte) i));
        }
        assertThat(blocks.blockBytes()).as("one slab").isEqualTo(8 << 10);
        assertThat(blocks.spareBytes()).isEqualTo(3 << 10);
        for (PooledPayloads p : ring) {
            p.release();
        }
        assertThat(blocks.spareBytes()).as("all but the thread's current block").isEqualTo(7 << 10);
        for (int round = 0; round < 30; round++) { // a ring that lets the oldest go as new ones come
            PooledPayloads p = copyEvent(blocks, 96, (byte) round);
            assertEvent(p, 96, (byte) round);
            p.release();
        }
        assertThat(blocks.blockBytes()).as("no slab added for the later copies").isEqualTo(8 << 10);
        blocks.close();
        assertThat(blocks.spareBytes()).as("closed: the current block kept for reuse too").isEqualTo(8 << 10);

        PayloadBlocks next = new PayloadBlocks(spares); // the next broker in the process
        PooledPayloads p = copyEvent(next, 3000, (byte) 9);
        assertEvent(p, 3000, (byte) 9);
        assertThat(next.blockBytes()).as("three blocks of the same slab").isEqualTo(8 << 10);
        assertThat(next.trim()).as("a slab with blocks in use is not freed").isZero();
        p.release();
        next.close();
        assertThat(next.trim()).isEqualTo(8 << 10);
        assertThat(next.blockBytes()).isZero();
        assertThat(held.sum()).isZero();
    }

    @Test
    void slabs_whoseBlocksNoCopyNeededForAWholeWindow_areFreed_andAnIdleTrimFreesTheRest() {
        SpareBlocks spares = new SpareBlocks(1 << 10, 2 << 10); // slabs of two blocks
        PayloadBlocks blocks = new PayloadBlocks(spares);
        long window = TimeUnit.SECONDS.toNanos(PayloadBlocks.SPARE_DECAY_SECONDS);
        long t0 = System.nanoTime() + window; // the first window has passed
        PooledPayloads big = copyEvent(blocks, (5 << 10) - 4, (byte) 7); // exactly five blocks: three slabs
        assertThat(big.parts()).isEqualTo(5);
        assertEvent(big, (5 << 10) - 4, (byte) 7);
        assertThat(blocks.blockBytes()).isEqualTo(6 << 10);
        big.release();
        assertThat(blocks.spareBytes()).as("the sixth block and four given back; the fifth is current")
                .isEqualTo(5 << 10);

        assertThat(spares.freeUnused(t0)).as("the window the blocks were taken in: none was spare all along")
                .isZero();
        // The current block is full: it is handed back and taken again, then one more spare is taken.
        PooledPayloads next = copyEvent(blocks, 2000, (byte) 8);
        next.release();
        assertThat(spares.freeUnused(t0 + window / 2)).as("within a window: nothing yet").isZero();
        assertThat(spares.freeUnused(t0 + window)).as("four spares unneeded: two slabs with no block in use freed")
                .isEqualTo(4 << 10);
        assertThat(blocks.blockBytes()).as("the slab of the current block stays").isEqualTo(2 << 10);
        assertThat(blocks.spareBytes()).isEqualTo(1 << 10);
        assertThat(spares.freeUnused(t0 + 2 * window)).as("one spare is not a slab's worth").isZero();

        blocks.dropCurrentBlock();
        assertThat(blocks.spareBytes()).isEqualTo(2 << 10);
        assertThat(blocks.trim()).isEqualTo(2 << 10);
        assertThat(blocks.blockBytes()).isZero();
        blocks.close();
    }

    @Test
    void close_handsTheCurrentBlocksBack_andABlockStillInUseGoesBackWithItsLastRegion() {
        PayloadBlocks blocks = new PayloadBlocks(new SpareBlocks(1 << 10, 4 << 10));
        PooledPayloads kept = copyEvent(blocks, 2000, (byte) 3); // two blocks
        PooledPayloads other = copyEvent(blocks, 10, (byte) 4);
        other.release();
        blocks.close();
        assertThat(blocks.spareBytes()).as("the slab's two untouched blocks; the kept region holds two")
                .isEqualTo(2 << 10);
        assertEvent(kept, 2000, (byte) 3);
        assertThat(blocks.trim()).as("a block of the slab is still in use").isZero();
        kept.release();
        assertThat(blocks.spareBytes()).isEqualTo(4 << 10);
        assertThatThrownBy(() -> copyEvent(blocks, 10, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThat(blocks.trim()).isEqualTo(4 << 10);
        assertThat(held.sum()).isZero();
    }

    @Test
    void eachThread_copiesIntoItsOwnBlock_andEveryRegionReadsBackExactly() throws Exception {
        PayloadBlocks blocks = new PayloadBlocks(new SpareBlocks(4 << 10, 64 << 10));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<PooledPayloads>>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                byte fill = (byte) (t + 1);
                Callable<List<PooledPayloads>> copier = () -> {
                    List<PooledPayloads> mine = new ArrayList<>();
                    for (int i = 0; i < 500; i++) {
                        mine.add(copyEvent(blocks, 1 + i % 300, fill));
                    }
                    return mine;
                };
                done.add(threads.submit(copier));
            }
            for (int t = 0; t < 2; t++) {
                List<PooledPayloads> mine = done.get(t).get(30, TimeUnit.SECONDS);
                for (int i = 0; i < mine.size(); i++) {
                    assertEvent(mine.get(i), 1 + i % 300, (byte) (t + 1));
                    mine.get(i).release();
                }
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(held.sum()).isZero();
        blocks.close();
        blocks.trim();
        assertThat(blocks.blockBytes()).as("the pool threads' current blocks too").isZero();
    }
}
