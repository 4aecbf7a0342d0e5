package dev.felix.bench.workload;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.common.UdpDrops;
import dev.felix.bench.system.Target;

/**
 * CPU used over the measured part of a run: by the broker alone, and by everything (this JVM's load
 * generator plus the broker, wherever it runs). "Everything" is the comparable figure across systems:
 * an in-process Felix broker's CPU is already inside this JVM's, a peer's is added from /proc. Also the bytes
 * allocated and the UDP datagrams the kernel dropped over the same window. The drop count is read from /proc
 * first at the start and last at the stop, so its own reading is outside the CPU and allocation figures.
 */
final class CpuWindow {

    private final Target target;
    private volatile long process0 = -1;
    private volatile long broker0 = -1;
    private volatile long machine0 = -1;
    private volatile long wall0;
    private volatile long allocated0 = -1;
    private volatile long brokerAllocated0 = -1;
    private volatile long udpDrops0 = -1;
    private long allocatedBytes = -1;
    private long brokerAllocatedBytes = -1;
    private long totalNanos = -1;
    private long brokerNanos = -1;
    private double foreignShare = Double.NaN;
    private long udpDrops = -1;

    CpuWindow(Target target) {
        this.target = target;
    }

    /** Marks the start (callable from any thread, once). */
    void start() {
        udpDrops0 = UdpDrops.sinceBoot();
        wall0 = System.nanoTime();
        machine0 = CpuClock.machineBusy();
        broker0 = target.brokerCpuNanos();
        brokerAllocated0 = target.brokerAllocatedBytes();
        allocated0 = CpuClock.allocatedBytes(name -> true);
        process0 = CpuClock.process();
    }

    /** Marks the end. */
    void stop() {
        long process1 = CpuClock.process();
        long allocated1 = CpuClock.allocatedBytes(name -> true);
        long brokerAllocated1 = target.brokerAllocatedBytes();
        if (allocated0 >= 0 && allocated1 >= 0) {
            allocatedBytes = Math.max(0, allocated1 - allocated0);
        }
        if (brokerAllocated0 >= 0 && brokerAllocated1 >= 0) {
            brokerAllocatedBytes = Math.max(0, brokerAllocated1 - brokerAllocated0);
        }
        long broker1 = target.brokerCpuNanos();
        long machine1 = CpuClock.machineBusy();
        long wall = System.nanoTime() - wall0;
        long udpDrops1 = UdpDrops.sinceBoot();
        if (udpDrops0 >= 0 && udpDrops1 >= 0) {
            udpDrops = udpDrops1 - udpDrops0;
        }
        if (process0 < 0 || process1 < 0) {
            return;
        }
        long broker = broker0 >= 0 && broker1 >= 0 ? broker1 - broker0 : -1;
        brokerNanos = broker;
        if (target.brokerInThisProcess()) {
            totalNanos = process1 - process0;
        } else if (broker >= 0) {
            totalNanos = process1 - process0 + broker;
        }
        if (machine0 >= 0 && machine1 >= 0 && totalNanos >= 0 && wall > 0) {
            long foreign = Math.max(0, machine1 - machine0 - totalNanos);
            foreignShare = foreign / ((double) wall * Runtime.getRuntime().availableProcessors());
        }
    }

    /**
     * Share of the machine's CPU capacity used by other processes during the window (0..1; NaN if
     * unknown): a noise gauge for a shared machine. /proc/stat counts in 10 ms ticks, so short windows
     * read coarsely.
     */
    double foreignShare() {
        return foreignShare;
    }

    /**
     * UDP datagrams the kernel dropped on full receive buffers over the window, machine-wide ({@link UdpDrops}; -1
     * if unknown). QUIC resends them, so nothing is lost, but each drop costs its connection a resend and a
     * congestion-window cut: a run with drops shows why it was slower.
     */
    long udpDrops() {
        return udpDrops;
    }

    long totalNanos() {
        return totalNanos;
    }

    long brokerNanos() {
        return brokerNanos;
    }

    /**
     * Bytes allocated by this JVM's threads over the window (-1 if unknown): the load generator and the SDK (and
     * an in-process broker). A peer broker's own allocations are not in it (they are not JVM allocations).
     */
    long allocatedBytes() {
        return allocatedBytes;
    }

    /** Bytes allocated by an in-process broker's threads over the window; -1 for a broker elsewhere. */
    long brokerAllocatedBytes() {
        return brokerAllocatedBytes;
    }
}
