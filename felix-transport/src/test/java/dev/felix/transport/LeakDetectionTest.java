package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.testing.LeakCheckExtension;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * This module's tests run Netty's leak detection at PARANOID through felix-testing's recorder: a buffer dropped
 * without its release is found and reported (and, after a test class, fails it).
 */
class LeakDetectionTest {

    @Test
    void aBufferDroppedWithoutItsRelease_isReported_andOneReleasedIsNot() {
        assertThat(LeakCheckExtension.leaksNow()).as("nothing leaked before this test").isEmpty();
        PooledByteBufAllocator.DEFAULT.directBuffer(64).writeInt(1).release();
        assertThat(LeakCheckExtension.leaksNow()).as("released: no leak").isEmpty();

        for (int i = 0; i < 8; i++) {
            PooledByteBufAllocator.DEFAULT.directBuffer(64).writeInt(i); // dropped, never released
        }
        assertThat(LeakCheckExtension.leaksNow()).isNotEmpty()
                .allSatisfy(report -> assertThat(report).startsWith("LEAK: ByteBuf.release() was not called"));
    }
}
