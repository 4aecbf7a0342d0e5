package dev.felix.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's leak detector, recording every leak it reports so that {@link LeakCheckExtension} can fail the test
 * class that leaked, instead of a log line nobody reads. A module's tests install it with
 * {@code -Dio.netty.customResourceLeakDetector=dev.felix.testing.LeakRecorder} and
 * {@code -Dio.netty.leakDetection.level=paranoid} (the root pom's {@code felix.test.leakDetection}).
 *
 * <p>Netty finds a leak when the garbage collector has reclaimed a buffer that was never released, and reports it
 * at the next allocation of that kind of resource; the report still goes to the log as usual.
 *
 * <p><b>Threads.</b> Reports arrive on any allocating thread; {@link #drain()} from any thread.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new ArrayList<>();

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** The constructor older Netty factories look for first. */
    @SuppressWarnings("deprecation")
    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
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
