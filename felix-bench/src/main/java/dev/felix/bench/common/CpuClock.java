package dev.felix.bench.common;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * CPU time used, in nanoseconds: of this JVM, of some of its threads (to tell an in-process broker's
 * threads from the clients'), or of another process (a peer broker) read from {@code /proc}.
 */
public final class CpuClock {

    /** Linux's USER_HZ: the unit of utime/stime in /proc/PID/stat. 100 on every mainstream kernel. */
    static final long TICKS_PER_SECOND = 100;

    private CpuClock() {
    }

    /** CPU time of this whole process (every thread, JIT and GC included); -1 if the JVM cannot tell. */
    public static long process() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** CPU time of the live threads of this JVM whose names match; -1 if thread CPU time is unsupported. */
    public static long threads(Predicate<String> name) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) {
            return -1;
        }
        long total = 0;
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && name.test(info.getThreadName())) {
                long t = mx.getThreadCpuTime(info.getThreadId());
                if (t > 0) {
                    total += t;
                }
            }
        }
        return total;
    }

    /**
     * Bytes allocated so far by the live threads of this JVM whose names match (HotSpot's per-thread allocation
     * counter: every TLAB and outside-TLAB allocation); -1 if the JVM cannot tell. A thread that ended takes its
     * count with it, so take both ends of a window while the measured threads live.
     */
    public static long allocatedBytes(Predicate<String> name) {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx)
                || !mx.isThreadAllocatedMemorySupported() || !mx.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        long total = 0;
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && name.test(info.getThreadName())) {
                long b = mx.getThreadAllocatedBytes(info.getThreadId());
                if (b > 0) {
                    total += b;
                }
            }
        }
        return total;
    }

    /** The machine's load averages as {@code /proc/loadavg} gives them, for a benchmark's "how loaded was it"; "unknown". */
    public static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** utime + stime of another process from {@code /proc/<pid>/stat}; -1 if it cannot be read. */
    public static long ofProcess(long pid) {
        try {
            return parseStat(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU time the whole machine spent busy (every process, kernel included), from the first line of
     * {@code /proc/stat}; -1 if unreadable. Compared with what a run itself used, it shows how much other
     * work shared the machine during the run.
     */
    public static long machineBusy() {
        try {
            return parseMachineBusy(Files.readAllLines(Path.of("/proc/stat")).get(0));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Busy nanoseconds from a {@code cpu  user nice system idle iowait irq softirq steal ...} line. */
    static long parseMachineBusy(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu")) {
            throw new IllegalArgumentException("not the aggregate cpu line");
        }
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) { // user nice system irq softirq steal (not idle, iowait)
            busy += Long.parseLong(f[i]);
        }
        return busy * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /**
     * utime + stime in nanoseconds from the text of a {@code /proc/PID/stat} file. The command name (field
     * 2) is in parentheses and may itself hold spaces and parentheses, so fields are counted from the
     * last ')': utime and stime are fields 14 and 15 of the file.
     */
    static long parseStat(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc stat line");
        }
        String[] f = stat.substring(close + 2).trim().split("\\s+");
        // f[0] is field 3 (state); field n is f[n - 3].
        long ticks = Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }
}
