package dev.felix.testing;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector, recording every leak it reports so that {@link LeakCheckExtension} can fail the test
 * class that leaked, instead of a log line nobody reads. A module's tests install it with
 * {@code -Dio.netty.customResourceLeakDetector=dev.felix.testing.LeakRecorder} and
 * {@code -Dio.netty.leakDetection.level=paranoid} (the root pom's {@code felix.test.leakDetection}).
 *
 * <p>Netty finds a leak when the garbage collector has reclaimed a buffer that was never released, and reports it
 * at the next allocation of that kind of resource; the report still goes to the log as usual.
 *
 * <p>At PARANOID it also tells how many buffers are live ({@link #liveBuffers()}): allocated and not yet released.
 * That is the honest figure of what a program holds, which the default adaptive allocator's metric (the chunks it
 * keeps, used or not) does not give.
 *
 * <p><b>Threads.</b> Reports arrive on any allocating thread; {@link #drain()} and {@link #liveBuffers()} from
 * any thread.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new ArrayList<>();
    /** Every detector Netty made through this class (one per kind of resource). */
    private static final List<LeakRecorder<?>> DETECTORS = new CopyOnWriteArrayList<>();

    /** The buffers a program holds now: how many, and their capacity in bytes. */
    public record Live(long buffers, long bytes) {
    }

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        DETECTORS.add(this);
    }

    /** The constructor older Netty factories look for first. */
    @SuppressWarnings("deprecation")
    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
        DETECTORS.add(this);
    }

    /**
     * The Netty buffers allocated and not yet released, as the detectors track them (at PARANOID every buffer is
     * tracked from allocation to its last {@code release()}); a buffer collected without that release counts until
     * Netty reports it as a leak. Read from Netty's private tracking set (the pinned Netty version's
     * {@code ResourceLeakDetector.allLeaks}, whose entries are weak references to the tracked buffers): there is no
     * public view of it.
     *
     * @throws IllegalStateException if this Netty version keeps its tracking elsewhere
     */
    public static Live liveBuffers() {
        long buffers = 0;
        long bytes = 0;
        for (LeakRecorder<?> detector : DETECTORS) {
            for (Object tracker : tracked(detector)) {
                if (tracker instanceof Reference<?> ref && ref.get() instanceof ByteBuf buf) {
                    buffers++;
                    bytes += buf.capacity();
                }
            }
        }
        return new Live(buffers, bytes);
    }

    private static Collection<?> tracked(ResourceLeakDetector<?> detector) {
        try {
            Field all = ResourceLeakDetector.class.getDeclaredField("allLeaks");
            all.setAccessible(true);
            return (Collection<?>) all.get(detector);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the buffers Netty's leak detector tracks (its private"
                    + " field ResourceLeakDetector.allLeaks, as of Netty 4.2.18): " + e, e);
        }
    }

    /** Whether the running JVM reports leaks through this class. */
    static boolean installed() {
        return LeakRecorder.class.getName().equals(System.getProperty("io.netty.customResourceLeakDetector"));
    }

    /** The leaks reported since the last call, each with the access records Netty kept. */
    static List<String> drain() {
        synchronized (LEAKS) {
            List<String> out = List.copyOf(LEAKS);
            LEAKS.clear();
            return out;
        }
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        record("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        record("LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                + " (no access records)");
        super.reportUntracedLeak(resourceType);
    }

    private static void record(String report) {
        synchronized (LEAKS) {
            LEAKS.add(report);
        }
    }
}
