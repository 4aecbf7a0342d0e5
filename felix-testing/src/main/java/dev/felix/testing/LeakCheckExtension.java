package dev.felix.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class whose code leaked a Netty buffer (a reference-counted buffer reclaimed by the collector
 * without its last {@code release()}), when the module runs its tests with {@link LeakRecorder}. Registered for
 * every test class through JUnit's extension auto-detection; a no-op in modules without the recorder.
 *
 * <p>After the class's last test it collects garbage and allocates a few buffers of each kind, which is when Netty
 * looks for reclaimed, unreleased ones. A leak found then is reported against this class; one Netty only finds
 * later (its buffer survived these collections) is reported against a later class of the same module, so the
 * module's run fails either way.
 */
public final class LeakCheckExtension implements AfterAllCallback {

    /** Collections to run: a buffer dropped just before the check may need more than one to be reclaimed. */
    private static final int ROUNDS = 3;

    @Override
    public void afterAll(ExtensionContext context) {
        if (!LeakRecorder.installed()) {
            return;
        }
        List<String> leaks = leaksNow();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) found after "
                    + context.getDisplayName() + " (a buffer collected without its last release()):\n"
                    + String.join("\n\n", leaks.subList(0, Math.min(3, leaks.size()))));
        }
    }

    /**
     * Collects garbage, lets Netty report what it finds, and returns (and forgets) every leak reported since the
     * last call. Empty when the JVM does not run {@link LeakRecorder}.
     */
    @SuppressWarnings("removal") // runFinalization: still the way to let reclaimed buffers' references clear
    public static List<String> leaksNow() {
        if (!LeakRecorder.installed()) {
            return List.of();
        }
        for (int i = 0; i < ROUNDS; i++) {
            System.gc();
            System.runFinalization();
            touchAllocators();
        }
        return LeakRecorder.drain();
    }

    /** An allocation is when Netty reports the leaks it has found so far, per kind of buffer. */
    private static void touchAllocators() {
        for (int i = 0; i < 4; i++) {
            release(PooledByteBufAllocator.DEFAULT.directBuffer(16));
            release(PooledByteBufAllocator.DEFAULT.heapBuffer(16));
            release(UnpooledByteBufAllocator.DEFAULT.directBuffer(16));
            release(UnpooledByteBufAllocator.DEFAULT.heapBuffer(16));
        }
    }

    private static void release(ByteBuf b) {
        b.release();
    }
}
