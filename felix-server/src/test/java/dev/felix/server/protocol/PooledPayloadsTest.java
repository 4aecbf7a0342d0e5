package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.stream.LentPayloads;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link PooledPayloads}: a publish's events copied once out of its frame into a pooled buffer, read and written back
 * exactly (merged regions too, across their buffers), counted in {@code held} until the last release, which returns
 * every buffer (leak detection runs at PARANOID in this module's tests).
 */
class PooledPayloadsTest {

    private final LongAdder held = new LongAdder();
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;

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
        PooledPayloads p = PooledPayloads.copyOf(f, 7, length, alloc, held);
        assertThat(f.position()).as("the frame's position is left as it was").isZero();
        assertThat(f.limit()).isEqualTo(length + 14);
        return p;
    }

    private static String text(LentPayloads p, int position) {
        return new String(p.payloadAt(position), StandardCharsets.UTF_8);
    }

    @Test
    void aCopy_readsItsEventsWhereTheyLie_andCountsItsBytesUntilTheLastRelease() {
        PooledPayloads p = copy("ab", "", "cde");
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
        assertThatThrownBy(() -> p.lengthAt(0)).as("its buffer went back to the pool")
                .isInstanceOf(io.netty.util.IllegalReferenceCountException.class);
    }

    @Test
    void mergedRegions_readAndWriteAcrossTheirBuffers_inOrder_andTheMergeOwnsThemAll() {
        PooledPayloads a = copy("one", "two");
        PooledPayloads b = copy("three");
        PooledPayloads c = copy("four", "five");
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

        ByteBuf out = alloc.directBuffer();
        try {
            all.writeTo(out, 7, (int) bytes - 7 - 8); // from "two" up to just before "five"
            byte[] written = new byte[out.readableBytes()];
            out.getBytes(0, written);
            assertThat(written).isEqualTo(frame(0, "two", "three", "four").array());
        } finally {
            out.release();
        }

        ByteBuffer expected = frame(0, "two", "three", "four");
        byte[] copied = new byte[24];
        all.copy(7, copied, 0, 24); // a run across three buffers, as a heap frame encoding copies it
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

        all.release();
        assertThat(held.sum()).as("every part returned by the merged region's last release").isZero();
    }
}
