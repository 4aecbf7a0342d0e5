package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.testing.LeakCheckExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The memory of released large buffers is reused within a bound, and freed by a trim. */
class LargeBufferCacheTest {

    private static final int MIB = 1 << 20;

    @Test
    void sizeClasses_areFourPerPowerOfTwo_andCoverTheCapacity() {
        assertThat(LargeBufferCache.sizeClass(4 * MIB)).isEqualTo(4 * MIB);
        assertThat(LargeBufferCache.sizeClass(4 * MIB + 8)).isEqualTo(5 * MIB);
        assertThat(LargeBufferCache.sizeClass(5 * MIB)).isEqualTo(5 * MIB);
        assertThat(LargeBufferCache.sizeClass((128 << 10) + 1)).isEqualTo(160 << 10);
        for (int c = (128 << 10) + 1; c < 64 * MIB; c = c * 3 / 2 + 7) {
            int size = LargeBufferCache.sizeClass(c);
            assertThat(size).as("class of %d", c).isGreaterThanOrEqualTo(c).isLessThanOrEqualTo(c + c / 4);
        }
    }

    @Test
    void aReleasedBuffer_isReusedForTheNextOfItsClass_withExactlyTheCapacityAsked() {
        LargeBufferCache cache = new LargeBufferCache(16 * MIB);
        ByteBuf first = cache.directBuffer(4 * MIB + 8, 4 * MIB + 8);
        long address = first.memoryAddress();
        first.writeBytes(new byte[4 * MIB + 8]);
        assertThat(first.release()).isTrue();
        assertThat(cache.cachedBytes()).isEqualTo(5 * MIB);

        ByteBuf second = cache.directBuffer(4 * MIB + 1000, 4 * MIB + 1000);
        try {
            assertThat(second.memoryAddress()).as("the same memory").isEqualTo(address);
            assertThat(second.capacity()).isEqualTo(4 * MIB + 1000);
            assertThat(second.maxCapacity()).isEqualTo(4 * MIB + 1000);
            assertThat(second.readableBytes()).isZero();
            assertThat(cache.cachedBytes()).isZero();
            second.writerIndex(second.capacity());
            assertThatThrownBy(() -> second.writeByte(1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> second.capacity(8 * MIB)).isInstanceOf(UnsupportedOperationException.class);
        } finally {
            second.release();
        }

        ByteBuf otherClass = cache.directBuffer(2 * MIB, 2 * MIB);
        assertThat(otherClass.memoryAddress()).as("another class takes other memory").isNotEqualTo(address);
        otherClass.release();
        assertThat(cache.cachedBytes()).isEqualTo(7 * MIB);
        assertThat(cache.trim()).isEqualTo(7 * MIB);
        assertThat(cache.cachedBytes()).isZero();
    }

    @Test
    void noMoreThanTheBoundIsKept_andSlicesKeepTheMemoryUntilTheirRelease() {
        LargeBufferCache cache = new LargeBufferCache(10 * MIB);
        List<ByteBuf> inUse = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inUse.add(cache.directBuffer(5 * MIB, 5 * MIB));
        }
        inUse.get(0).setByte(7, 42);
        ByteBuf slice = inUse.get(0).retainedSlice(0, 16);
        inUse.forEach(ByteBuf::release);
        assertThat(cache.cachedBytes()).as("two kept; the first still referenced by its slice").isEqualTo(10 * MIB);
        ByteBuf again = cache.directBuffer(5 * MIB, 5 * MIB);
        assertThat(again.memoryAddress()).as("kept memory, not the slice's").isNotEqualTo(slice.memoryAddress());
        again.setByte(7, 1);
        assertThat(slice.getByte(7)).as("the slice's memory untouched").isEqualTo((byte) 42);
        again.release();
        slice.release();
        assertThat(cache.cachedBytes()).as("the third over the bound: freed, not kept").isEqualTo(10 * MIB);
        cache.trim();
        assertThat(cache.cachedBytes()).isZero();

        LargeBufferCache none = new LargeBufferCache(0);
        none.directBuffer(5 * MIB, 5 * MIB).release();
        assertThat(none.cachedBytes()).as("a bound of 0 keeps nothing").isZero();
    }

    @Test
    void directBuffersAboveThePoolsLimit_comeFromTheSharedCache_andBelowItFromThePool() {
        DirectBuffers.trimLargeBuffers();
        ByteBuf large = DirectBuffers.exact(PooledByteBufAllocator.DEFAULT, DirectBuffers.POOLED_MAX_BYTES + 1);
        ByteBuf pooled = DirectBuffers.exact(PooledByteBufAllocator.DEFAULT, DirectBuffers.POOLED_MAX_BYTES);
        assertThat(large.alloc()).isSameAs(LargeBufferCache.SHARED);
        assertThat(pooled.alloc()).isSameAs(PooledByteBufAllocator.DEFAULT);
        large.release();
        pooled.release();
        assertThat(DirectBuffers.largeBuffersCachedBytes()).isEqualTo(160 << 10);
        assertThat(DirectBuffers.trimLargeBuffers()).isEqualTo(160 << 10);
        assertThat(DirectBuffers.largeBuffersCachedBytes()).isZero();
    }

    @Test
    void aLargeBufferDroppedWithoutItsRelease_isReportedAsALeak() {
        assertThat(LeakCheckExtension.leaksNow()).as("nothing leaked before this test").isEmpty();
        LargeBufferCache cache = new LargeBufferCache(16 * MIB);
        cache.directBuffer(MIB, MIB).writeInt(1).release();
        assertThat(LeakCheckExtension.leaksNow()).as("released: no leak").isEmpty();
        for (int i = 0; i < 8; i++) {
            cache.directBuffer(MIB, MIB).writeInt(i); // dropped, never released
        }
        assertThat(LeakCheckExtension.leaksNow()).isNotEmpty()
                .allSatisfy(report -> assertThat(report).startsWith("LEAK: ByteBuf.release() was not called"));
    }
}
