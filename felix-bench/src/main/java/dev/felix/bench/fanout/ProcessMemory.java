package dev.felix.bench.fanout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Memory of another process: its resident set from {@code /proc}, and a JVM's live heap through {@code jcmd}. */
final class ProcessMemory {

    private ProcessMemory() {
    }

    /** Resident set size in bytes ({@code VmRSS} of {@code /proc/<pid>/status}); -1 if unreadable. */
    static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone, or not Linux
        }
        return -1;
    }

    /**
     * Bytes of live objects on a JVM's heap: {@code jcmd PID GC.class_histogram} runs a full collection and
     * totals what survived, so garbage never counts. -1 if jcmd (from this JVM's installation) cannot tell.
     */
    static long liveHeapBytes(long pid) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return -1;
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
                    .redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return -1;
            }
            List<String> lines = new String(out, StandardCharsets.UTF_8).lines().toList();
            for (int i = lines.size() - 1; i >= 0; i--) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length == 3 && f[0].equals("Total")) {
                    return Long.parseLong(f[2]);
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
