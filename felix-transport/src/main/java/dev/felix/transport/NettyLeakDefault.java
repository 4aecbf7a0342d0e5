package dev.felix.transport;

import io.netty.util.ResourceLeakDetector;

/**
 * Netty's buffer leak detection in the {@code felix} command and in {@code felix bench} (whose Felix broker and
 * clients run in the benchmark's own JVM): off unless asked for.
 *
 * <p>Netty's default ({@code simple}) tracks one buffer allocation in 128 and records a stack trace for it, on the
 * broker's and the SDK's event loops; profiled under a 256 B fanout-10 latency run that was about 1.5% of the
 * process's CPU, spent on the delivery path. Leaks are looked for where they can be found without that cost on every
 * user's machine: every felix-transport, felix-client and felix-server test runs at {@code paranoid}, and a churn soak
 * checks that live buffers and direct memory return to their baseline. An operator who suspects a leak turns it back
 * on with {@code FELIX_JAVA_OPTS=-Dio.netty.leakDetection.level=simple} (or {@code paranoid}); an explicit setting of
 * either Netty property is always respected.
 */
public final class NettyLeakDefault {

    public static final String LEVEL = "io.netty.leakDetection.level";
    /** Netty's older name for the same setting, still read by it. */
    public static final String LEGACY_LEVEL = "io.netty.leakDetectionLevel";

    private NettyLeakDefault() {
    }

    /** Turns leak detection off unless the JVM was started with a level. Call before the first buffer is made. */
    public static void apply() {
        if (System.getProperty(LEVEL) == null && System.getProperty(LEGACY_LEVEL) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
