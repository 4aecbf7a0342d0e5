package dev.felix.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The recorder's count of live buffers (this module's tests run it at PARANOID, and none of them drops a buffer,
 * so no collection can change the count under the test).
 */
class LeakRecorderTest {

    @Test
    void liveBuffers_countsEveryBufferHeldUntilItsLastRelease() {
        assertThat(LeakRecorder.installed()).as("the module's tests run with the recorder").isTrue();
        LeakRecorder.Live before = LeakRecorder.liveBuffers();
        List<ByteBuf> held = new ArrayList<>();
        held.add(ByteBufAllocator.DEFAULT.directBuffer(1_000, 1_000));
        held.add(PooledByteBufAllocator.DEFAULT.heapBuffer(3_000, 3_000));
        held.add(Unpooled.directBuffer(500, 500));
        held.get(0).retain(); // two releases to go

        LeakRecorder.Live holding = LeakRecorder.liveBuffers();
        assertThat(holding.buffers() - before.buffers()).isEqualTo(3);
        assertThat(holding.bytes() - before.bytes()).isEqualTo(4_500);

        held.forEach(ByteBuf::release);
        assertThat(LeakRecorder.liveBuffers().buffers() - before.buffers()).as("one still retained").isEqualTo(1);
        held.get(0).release();
        assertThat(LeakRecorder.liveBuffers()).isEqualTo(before);
    }
}
