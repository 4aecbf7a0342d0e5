package dev.felix.transport;

import io.netty.util.internal.PlatformDependent;

/**
 * How Netty reads and writes the direct buffers every datagram, frame and payload passes through: with
 * {@code sun.misc.Unsafe} (plain memory copies), or, where Netty does not use it, through {@code ByteBuffer} views
 * (a bounds-checked view object per access that copies or hands out a buffer).
 *
 * <p><b>Why it matters.</b> Netty 4.2 stops using {@code Unsafe} by default from JDK 24 on, where the JDK would warn
 * about its memory access (JEP 498); the launcher ({@code felix}) and the broker processes the benchmarks start
 * ({@code NodeProcess}) ask for it on JDK 24 and 25 with {@code --sun-misc-unsafe-memory-access=allow}, which also
 * keeps the JDK quiet. Side by side on JDK 25 it cut the broker's and the clients' CPU per delivery at 4 KiB fanout 10
 * by about a tenth (docs/benchmarks.md, "Netty's direct buffers through Unsafe"). {@code felix server} prints the
 * {@link #current()} report in its banner; the gauge {@code felix_netty_unsafe} is 1 when Netty uses it.
 */
public final class NettyMemoryAccess {

    /** Whether Netty uses {@code Unsafe} in this process, and a line saying so (and why not). */
    public record Report(boolean unsafe, String text) {
    }

    private NettyMemoryAccess() {
    }

    /** This process's. */
    public static Report current() {
        return report(PlatformDependent.hasUnsafe(), PlatformDependent.getUnsafeUnavailabilityCause());
    }

    static Report report(boolean unsafe, Throwable whyNot) {
        if (unsafe) {
            return new Report(true, "direct buffers through sun.misc.Unsafe");
        }
        String why = whyNot == null || whyNot.getMessage() == null ? "Unsafe unavailable" : whyNot.getMessage();
        return new Report(false, "direct buffers through ByteBuffer views (" + why
                + "; --sun-misc-unsafe-memory-access=allow turns Unsafe on)");
    }
}
