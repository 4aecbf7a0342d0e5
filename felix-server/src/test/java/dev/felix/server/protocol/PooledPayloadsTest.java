package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.stream.LentPayloads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link PooledPayloads}: a publish's events copied once out of its frame into payload blocks, read and written back
 * exactly (across blocks and merged regions too, with lengths split by a seam), counted in {@code held} until the last
 * release, which gives every block back (leak detection runs at PARANOID in this module's tests).
 */
class PooledPayloadsTest {

    private final LongAdder held = new LongAdder();
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    /** Blocks of 8 bytes (slabs of eight): almost every event, and some length prefixes, span a seam. */
    private PayloadBlocks blocks = new PayloadBlocks(new SpareBlocks(8, 64));

    @org.junit.jupiter.api.AfterEach
    void closeBlocks() {
        blocks.close();
        blocks.trim();
        assertThat(blocks.blockBytes()).as("every block handed back once closed and released, then freed").isZero();
    }

    /** A frame payload: {@code junk} bytes, then the events behind their lengths, then {@code junk} more. */
    private static ByteBuffer frame(int junk, String... payloads) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[junk]);
        for (String p : payloads) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
            out.writeBytes(b);
        }
        out.writeBytes(new byte[junk]);
        return ByteBuffer.wrap(out.toByteArray());
    }

    private PooledPayloads copy(String... payloads) {
        ByteBuffer f = frame(7, payloads);
        int length = f.remaining() - 14;
        PooledPayloads p = blocks.copy(f, 7, length, held);
        assertThat(f.position()).as("the frame's position is left as it was").isZero();
        assertThat(f.limit()).isEqualTo(length + 14);
        return p;
    }

    private static String text(LentPayloads p, int position) {
        return new String(p.payloadAt(position), StandardCharsets.UTF_8);
    }

    @Test
    void aCopy_readsItsEventsWhereTheyLie_andCountsItsBytesUntilTheLastRelease() {
        blocks.close();
        blocks = new PayloadBlocks(new SpareBlocks(64, 64));
        PooledPayloads p = copy("ab", "", "cde");
        assertThat(p.parts()).as("room in one block: one part").isEqualTo(1);
        assertThat(held.sum()).isEqualTo(4 + 2 + 4 + 4 + 3);
        assertThat(p.lengthAt(0)).isEqualTo(2);
        assertThat(text(p, 0)).isEqualTo("ab");
        assertThat(p.lengthAt(6)).isZero();
        assertThat(text(p, 10)).isEqualTo("cde");

        p.retain();
        p.release();
        assertThat(held.sum()).as("one reference left").isEqualTo(17);
        p.release();
        assertThat(held.sum()).isZero();
        assertThat(p.references()).isZero();
        assertThatThrownBy(p::release).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(p::retain).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> p.lengthAt(0)).as("its block went back for reuse")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void mergedRegions_readAndWriteAcrossTheirBlocks_inOrder_andTheMergeOwnsThemAll() {
        PooledPayloads a = copy("one", "two");
        PooledPayloads b = copy("three");
        PooledPayloads c = copy("four", "five");
        assertThat(a.lengthAt(7)).as("a length prefix split 1 + 3 by a seam").isEqualTo(3);
        assertThat(a.parts()).isEqualTo(2);
        LentPayloads ab = a.followedBy(new LentPayloads[] {b});
        PooledPayloads all = (PooledPayloads) ab.followedBy(new LentPayloads[] {c});
        long bytes = held.sum();
        assertThat(bytes).isEqualTo((4 + 3) + (4 + 3) + (4 + 5) + (4 + 4) + (4 + 4));

        int at = 0;
        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            seen.append(text(all, at)).append(' ');
            at += 4 + all.lengthAt(at);
        }
        assertThat(seen.toString()).isEqualTo("one two three four five ");
        assertThat(at).isEqualTo(bytes);

        for (ByteBuf out : List.of(alloc.directBuffer(), alloc.heapBuffer())) { // by address, and through buffers
            try {
                out.writeBytes(new byte[] {9, 9, 9}); // what a frame's header put before the events
                all.writeTo(out, 7, (int) bytes - 7 - 8); // from "two" up to just before "five"
                byte[] written = new byte[out.readableBytes() - 3];
                out.getBytes(3, written);
                assertThat(written).isEqualTo(frame(0, "two", "three", "four").array());
                assertThat(out.getByte(2)).as("what was before is kept").isEqualTo((byte) 9);
            } finally {
                out.release();
            }
        }

        ByteBuffer expected = frame(0, "two", "three", "four");
        byte[] copied = new byte[24];
        all.copy(7, copied, 0, 24); // a run across several blocks, as a heap frame encoding copies it
        assertThat(copied).isEqualTo(expected.array());
        ByteBuffer into = ByteBuffer.allocateDirect(40).position(3).limit(30);
        all.copy(7, into, 24);
        assertThat(into.position()).isEqualTo(27);
        assertThat(into.limit()).as("left as it was").isEqualTo(30);
        byte[] fromDirect = new byte[24];
        into.get(3, fromDirect);
        assertThat(fromDirect).isEqualTo(expected.array());
        assertThatThrownBy(() -> all.copy(7, ByteBuffer.allocate(10), 24))
                .as("no room: refused, not written past the limit").isInstanceOf(java.nio.BufferOverflowException.class);

        assertThat(all.parts()).as("neighbours in one block joined: the 39 bytes lie in 5 blocks of 8").isEqualTo(5);
        all.release();
        assertThat(held.sum()).as("every part returned by the merged region's last release").isZero();
        blocks.dropCurrentBlock();
        assertThat(blocks.spareBytes()).as("all five blocks back for reuse, with the slab's other three").isEqualTo(64);
    }

    @Test
    void publishesCopiedOneAfterAnother_mergeIntoOnePart_andHoldTheirBlockOnce() {
        blocks.close();
        blocks = new PayloadBlocks(new SpareBlocks(1 << 10, 1 << 10));
        PooledPayloads a = copy("one");
        PooledPayloads b = copy("two", "three");
        PooledPayloads merged = (PooledPayloads) a.followedBy(new LentPayloads[] {b});
        assertThat(merged.parts()).as("back to back in one block").isEqualTo(1);
        assertThat(text(merged, 7)).isEqualTo("two");
        assertThat(text(merged, 14)).isEqualTo("three");
        blocks.dropCurrentBlock();
        assertThat(blocks.spareBytes()).as("the merged region still uses the block").isZero();
        merged.release();
        assertThat(blocks.spareBytes()).as("one use given back per part: the block is free").isEqualTo(1 << 10);
        assertThat(held.sum()).isZero();
    }
}
