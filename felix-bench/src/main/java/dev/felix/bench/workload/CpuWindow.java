package dev.felix.bench.workload;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.system.Target;

/**
 * CPU used over the measured part of a run: by the broker alone, and by everything (this JVM's load
 * generator plus the broker, wherever it runs). "Everything" is the comparable figure across systems:
 * an in-process Felix broker's CPU is already inside this JVM's, a peer's is added from /proc.
 */
final class CpuWindow {

    private final Target target;
    private volatile long process0 = -1;
    private volatile long broker0 = -1;
    private volatile long machine0 = -1;
    private volatile long wall0;
    private long totalNanos = -1;
    private long brokerNanos = -1;
    private double foreignShare = Double.NaN;

    CpuWindow(Target target) {
        this.target = target;
    }

    /** Marks the start (callable from any thread, once). */
    void start() {
        wall0 = System.nanoTime();
        machine0 = CpuClock.machineBusy();
        broker0 = target.brokerCpuNanos();
        process0 = CpuClock.process();
    }

    /** Marks the end. */
    void stop() {
        long process1 = CpuClock.process();
        long broker1 = target.brokerCpuNanos();
        long machine1 = CpuClock.machineBusy();
        long wall = System.nanoTime() - wall0;
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

    long totalNanos() {
        return totalNanos;
    }

    long brokerNanos() {
        return brokerNanos;
    }
}
