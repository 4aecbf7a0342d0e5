package dev.felix.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * Whether the Java heap sits on 2 MiB transparent huge pages or on 4 KiB pages, and whether the kernel would lend it
 * huge pages if asked.
 *
 * <p><b>Why it matters.</b> A page fault costs the same whether it maps 4 KiB or 2 MiB, and ZGC faults its heap's
 * pages in again after it moves memory around. On this project's 2-vCPU VM the faults on heap pages were about a
 * tenth of the broker's event loop at 4 KiB payloads; with huge pages the 4 KiB throughput cell went up by about a
 * third (docs/benchmarks.md, "Huge pages for the heap"). ZGC's heap is a shared-memory file, so it gets huge pages
 * only where {@code /sys/kernel/mm/transparent_hugepage/shmem_enabled} allows them ({@code advise} is enough);
 * G1's heap is anonymous memory ({@code .../enabled}). Debian's kernels ship {@code shmem_enabled = never}.
 *
 * <p>The launcher ({@code felix}) and the broker processes the demos and benchmarks start ({@code NodeProcess}) ask
 * for them ({@code -XX:+UseTransparentHugePages}) with ZGC, and only where the kernel allows them: elsewhere the JVM
 * would print a warning. The JVM keeps that flag on even when the kernel refuses, so this class reads the kernel's
 * setting as well. {@code felix server} prints the {@link #current()} report in its banner; the gauge
 * {@code felix_heap_huge_pages} is 1 when the heap is on huge pages.
 */
public final class HeapPages {

    /** The kernel's setting for shared memory, which backs ZGC's heap. */
    public static final Path SHMEM_SETTING = Path.of("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
    /** The kernel's setting for anonymous memory, which backs the other collectors' heaps. */
    static final Path ANON_SETTING = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    private static final Set<String> SHMEM_ALLOWS = Set.of("always", "within_size", "advise", "force");
    private static final Set<String> ANON_ALLOWS = Set.of("always", "madvise");

    /** What the heap of this process sits on, and why. */
    public record Report(boolean huge, String text) {
    }

    private HeapPages() {
    }

    /** Whether the kernel lends huge pages to shared memory that asks for them (ZGC's heap). */
    public static boolean kernelAllowsForSharedMemory() {
        return setting(SHMEM_SETTING).map(SHMEM_ALLOWS::contains).orElse(false);
    }

    /** This process's heap pages. */
    public static Report current() {
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean zgc = hotspot != null && "true".equals(hotspot.getVMOption("UseZGC").getValue());
        boolean asked = hotspot != null && "true".equals(hotspot.getVMOption("UseTransparentHugePages").getValue());
        return report(zgc, asked, setting(zgc ? SHMEM_SETTING : ANON_SETTING));
    }

    /**
     * The report for a heap of ZGC ({@code zgc}) or another collector, huge pages asked for or not, under the kernel
     * setting that applies to it (the bracketed word of its file; empty where the file cannot be read).
     */
    static Report report(boolean zgc, boolean asked, Optional<String> kernel) {
        Set<String> allows = zgc ? SHMEM_ALLOWS : ANON_ALLOWS;
        String file = zgc ? SHMEM_SETTING.toString() : ANON_SETTING.toString();
        boolean allowed = kernel.map(allows::contains).orElse(false);
        if (asked && allowed) {
            return new Report(true, "2 MiB transparent huge pages");
        }
        String why = kernel.isEmpty() ? "the kernel has no transparent huge pages here"
                : !allowed ? "the kernel lends none to " + (zgc ? "shared memory" : "the heap") + ": " + file + " is "
                        + kernel.get()
                : "huge pages not asked for: -XX:+UseTransparentHugePages";
        return new Report(false, "4 KiB pages (" + why + ")");
    }

    /** The selected value of a kernel setting file such as {@code always [madvise] never}; empty if unreadable. */
    static Optional<String> setting(Path file) {
        try {
            return selected(Files.readString(file));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The bracketed word of {@code text}, or the whole trimmed text when it has no brackets. */
    static Optional<String> selected(String text) {
        int open = text.indexOf('[');
        int close = text.indexOf(']', open + 1);
        String value = open >= 0 && close > open ? text.substring(open + 1, close) : text.trim();
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }
}
