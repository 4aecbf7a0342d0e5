package dev.felix.transport;

import io.netty.util.internal.PlatformDependent;

/**
 * How Netty reaches and allocates the direct buffers every datagram, frame and payload passes through.
 *
 * <ul>
 *   <li><b>Access:</b> with {@code sun.misc.Unsafe} (plain memory copies), or, where Netty does not use it, through
 *       {@code ByteBuffer} views (a bounds-checked view object per access that copies or hands out a buffer). Netty
 *       4.2 stops using {@code Unsafe} by default from JDK 24 on, where the JDK would warn about its memory access
 *       (JEP 498); the launcher ({@code felix}) and the broker processes the benchmarks start ({@code NodeProcess})
 *       ask for it on JDK 24 and 25 with {@code --sun-misc-unsafe-memory-access=allow}, which also keeps the JDK
 *       quiet. Side by side on JDK 25 it cut the broker's and the clients' CPU per delivery at 4 KiB fanout 10 by
 *       about a tenth (docs/benchmarks.md, "Netty's direct buffers through Unsafe").</li>
 *   <li><b>Allocation:</b> by Netty itself ({@code malloc}, freed when the buffer is released), or through
 *       {@code ByteBuffer.allocateDirect}, which zero-fills every new buffer and leaves freeing it to a
 *       {@code Cleaner}. Netty's pool takes fresh chunks whenever deliveries queue up, and at 64 KiB payloads, fanout
 *       10, zero-filling them took a fifth of the broker's CPU (docs/benchmarks.md, "Direct memory without the JDK's
 *       zero-fill"). Netty allocates itself only with {@code Unsafe} and with reflective access to the JDK's
 *       {@code DirectByteBuffer} constructor, which the launcher and {@code NodeProcess} grant with
 *       {@code --add-opens=java.base/java.nio=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true}.</li>
 * </ul>
 *
 * {@code felix server} prints the {@link #current()} report in its banner; the gauges {@code felix_netty_unsafe} and
 * {@code felix_netty_direct_no_cleaner} say the same.
 */
public final class NettyMemoryAccess {

    /** The options that let Netty allocate direct memory itself, as {@link Report#text()} names them. */
    static final String OWN_ALLOCATION_OPTIONS =
            "--add-opens=java.base/java.nio=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true";

    /**
     * Whether Netty uses {@code Unsafe} in this process, whether it allocates direct memory itself, and a line saying
     * so (and why not).
     */
    public record Report(boolean unsafe, boolean ownAllocation, String text) {
    }

    private NettyMemoryAccess() {
    }

    /** This process's. */
    public static Report current() {
        return report(PlatformDependent.hasUnsafe(), PlatformDependent.useDirectBufferNoCleaner(),
                PlatformDependent.getUnsafeUnavailabilityCause());
    }

    static Report report(boolean unsafe, boolean ownAllocation, Throwable whyNot) {
        String allocation = ownAllocation ? "allocated by Netty (not zero-filled)"
                : "allocated by the JDK (zero-filled; " + OWN_ALLOCATION_OPTIONS + " lets Netty allocate them)";
        if (unsafe) {
            return new Report(true, ownAllocation, "direct buffers through sun.misc.Unsafe, " + allocation);
        }
        String why = whyNot == null || whyNot.getMessage() == null ? "Unsafe unavailable" : whyNot.getMessage();
        return new Report(false, ownAllocation, "direct buffers through ByteBuffer views (" + why
                + "; --sun-misc-unsafe-memory-access=allow turns Unsafe on), allocated by the JDK (zero-filled)");
    }
}
