package dev.felix.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps ZGC's heap near what the process needs instead of letting it grow toward {@code -Xmx}.
 *
 * <p><b>Why.</b> Under a high allocation rate ZGC lets the heap grow toward its maximum (a quarter of the
 * machine's memory by default), and every page it commits is faulted in and zeroed by the kernel the first time
 * it is touched. With payloads of a few KiB that was a quarter of the broker's event loop (the kernel's
 * {@code clear_page_erms} under {@code shmem_fault}) until the heap stopped growing; it should come back after
 * an idle spell, since the launcher's {@code ZUncommitDelay} of 30 s returns the memory (reasoned, not measured;
 * docs/benchmarks.md, "A heap that stops growing"). {@code SoftMaxHeapSize} makes ZGC collect early enough to
 * stay under it, so the same pages are reused and stay mapped.
 *
 * <p><b>The trade-off.</b> A soft maximum under the live set would make ZGC collect back to back. So the target
 * follows the heap: after each major collection it is {@code max(floor, 2 × heap used after it)}, capped at
 * {@code -Xmx}; a minor collection only ever raises it. It is lowered only when the new target is under three
 * quarters of the current one, so it does not move on every cycle. The floor is
 * {@value #DEFAULT_FLOOR_MIB} MiB, or {@code -Dfelix.heap_soft_max_floor_mb} (0 turns this off). ZGC may still
 * grow past the soft maximum rather than stall an allocation.
 *
 * <p>It acts only when the JVM runs ZGC, {@code SoftMaxHeapSize} was not set on the command line, and the
 * maximum heap is above the floor. {@link #install()} is called by {@code felix server} and {@code felix bench}
 * (whose broker and clients share its JVM), not by brokers started inside other programs: the setting belongs
 * to the process. The current value is the gauge {@code felix_heap_soft_max_bytes}.
 *
 * <p><b>Threads.</b> The JVM delivers collection notifications on one thread of its own; the target is written
 * there and read by the metrics.
 */
public final class HeapSoftMax {

    private static final Logger LOG = LoggerFactory.getLogger(HeapSoftMax.class);
    static final long DEFAULT_FLOOR_MIB = 1024;
    static final String FLOOR_PROPERTY = "felix.heap_soft_max_floor_mb";
    private static final String FLAG = "SoftMaxHeapSize";

    private static volatile HeapSoftMax installed;

    private final HotSpotDiagnosticMXBean hotspot;
    private final long floor;
    private final long maxHeap;
    private volatile long current;

    private HeapSoftMax(HotSpotDiagnosticMXBean hotspot, long floor, long maxHeap) {
        this.hotspot = hotspot;
        this.floor = floor;
        this.maxHeap = maxHeap;
    }

    /**
     * Sets the soft maximum to the floor and starts following the heap, once per process; returns whether it
     * acts (false when the JVM does not run ZGC, the flag was set by hand, or the floor is 0 or not under
     * {@code -Xmx}).
     */
    public static synchronized boolean install() {
        if (installed != null) {
            return true;
        }
        long floorMib = Long.getLong(FLOOR_PROPERTY, DEFAULT_FLOOR_MIB);
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long maxHeap = Runtime.getRuntime().maxMemory();
        if (floorMib <= 0 || hotspot == null || !"true".equals(hotspot.getVMOption("UseZGC").getValue())
                || setByHand(hotspot.getVMOption(FLAG).getOrigin())
                || floorMib << 20 >= maxHeap) {
            return false;
        }
        HeapSoftMax governor = new HeapSoftMax(hotspot, floorMib << 20, maxHeap);
        governor.apply(governor.floor, "start");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, handback) -> governor.collected(n), null, null);
            }
        }
        installed = governor;
        return true;
    }

    /** Whether the flag came from the command line, JDK_JAVA_OPTIONS or a flags file (the JVM's own sizing does not count). */
    private static boolean setByHand(VMOption.Origin origin) {
        return origin != VMOption.Origin.DEFAULT && origin != VMOption.Origin.ERGONOMIC;
    }

    /** The soft maximum this process keeps now, in bytes, or -1 when {@link #install()} did not act. */
    public static long current() {
        HeapSoftMax governor = installed;
        return governor == null ? -1 : governor.current;
    }

    /**
     * The soft maximum to keep after a collection that left {@code usedAfter} bytes of heap in use, given the
     * one kept now; {@code current} when it should not move.
     */
    static long next(long current, long usedAfter, boolean major, long floor, long maxHeap) {
        long target = Math.min(maxHeap, Math.max(floor, 2 * usedAfter));
        if (target > current) {
            return target;
        }
        return major && target < current / 4 * 3 ? target : current;
    }

    private void collected(Notification notification) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        String name = info.getGcName();
        if (name.contains("Pauses")) {
            return; // ZGC reports each cycle's pauses too; the cycle itself carries the heap after it
        }
        long usedAfter = 0;
        for (MemoryUsage usage : info.getGcInfo().getMemoryUsageAfterGc().values()) {
            usedAfter += usage.getUsed();
        }
        long next = next(current, usedAfter, !name.contains("Minor"), floor, maxHeap);
        if (next != current) {
            apply(next, name + " left " + (usedAfter >> 20) + " MiB in use");
        }
    }

    private void apply(long bytes, String why) {
        try {
            hotspot.setVMOption(FLAG, Long.toString(bytes));
            LOG.info("heap soft maximum {} MiB ({})", bytes >> 20, why);
            current = bytes;
        } catch (IllegalArgumentException e) {
            LOG.warn("could not set the heap soft maximum to {} MiB: {}", bytes >> 20, e.getMessage());
        }
    }
}
