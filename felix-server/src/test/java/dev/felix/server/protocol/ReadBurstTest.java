package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadBurst} runs, at the end of a read on an event loop, the drains woken on that loop during the read, in
 * wake order; not drains woken outside a read or from another thread; and one failing drain neither stops the others
 * nor reaches the caller (the stream whose read completed).
 */
class ReadBurstTest {

    private final EventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    @Test
    void drainsWokenDuringTheRead_runAtItsEnd_inOrder_aFailureIsolated() throws Exception {
        List<String> ran = new ArrayList<>();
        loop.submit(() -> {
            ReadBurst.defer(() -> ran.add("outside a read"), loop);
            ReadBurst.end(); // no read was open: nothing was held
            ReadBurst.begin();
            ReadBurst.defer(() -> ran.add("a"), loop);
            ReadBurst.defer(() -> {
                throw new IllegalStateException("a broken feed");
            }, loop);
            ReadBurst.defer(() -> ran.add("b"), loop);
            ReadBurst.end(); // must not throw
            ReadBurst.end(); // the list was cleared: nothing runs twice
        }).get(10, TimeUnit.SECONDS);
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void aDrainOfAnotherLoop_isLeftToItsTask() throws Exception {
        EventLoop other = new DefaultEventLoop();
        try {
            List<String> ran = new ArrayList<>();
            loop.submit(() -> {
                ReadBurst.begin();
                ReadBurst.defer(() -> ran.add("other loop"), other);
                ReadBurst.end();
            }).get(10, TimeUnit.SECONDS);
            assertThat(ran).isEmpty();
        } finally {
            other.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
