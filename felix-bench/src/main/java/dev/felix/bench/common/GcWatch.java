package dev.felix.bench.common;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Counts this JVM's garbage collections and their longest one while it is open, so a latency tail can
 * be read next to the GC pauses that may have caused it. Durations are as the JVM reports them per
 * collection (for G1 young collections, the pause).
 */
public final class GcWatch implements AutoCloseable {

    private final AtomicLong count = new AtomicLong();
    private final AtomicLong totalMillis = new AtomicLong();
    private final AtomicLong maxMillis = new AtomicLong();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = (notification, handback) -> {
        if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            // G1's concurrent cycle reports its (non-pausing) duration too, and ZGC reports every cycle ("ZGC Minor
            // Cycles", "ZGC Major Cycles") beside its pauses ("ZGC Minor Pauses"): only pauses stop delivery.
            if (info.getGcName().contains("Concurrent") || info.getGcName().endsWith("Cycles")) {
                return;
            }
            long ms = info.getGcInfo().getDuration();
            count.incrementAndGet();
            totalMillis.addAndGet(ms);
            maxMillis.accumulateAndGet(ms, Math::max);
        }
    };

    public GcWatch() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(listener, null, null);
                emitters.add(e);
            }
        }
    }

    public long count() {
        return count.get();
    }

    public long totalMillis() {
        return totalMillis.get();
    }

    public long maxMillis() {
        return maxMillis.get();
    }

    @Override
    public void close() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException ignored) {
                // already gone
            }
        }
    }
}
