package dev.felix.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * UDP datagrams the kernel dropped on full receive buffers, over the whole machine: {@code RcvbufErrors} of the
 * {@code Udp:} lines of {@code /proc/net/snmp} plus {@code Udp6RcvbufErrors} of {@code /proc/net/snmp6}. QUIC resends
 * what was dropped, so a benchmark loses nothing, but each drop delays its connection; a run that dropped shows why
 * its tail was long. Machine-wide: a process beside the benchmark that drops counts too.
 */
public final class UdpDrops {

    private UdpDrops() {
    }

    /** The count since boot; -1 where the kernel does not show it (not Linux). */
    public static long sinceBoot() {
        long v4 = snmp();
        long v6 = snmp6();
        return v4 < 0 ? -1 : v4 + Math.max(0, v6);
    }

    private static long snmp() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("Udp: ") && lines.get(i + 1).startsWith("Udp: ")) {
                    String[] names = lines.get(i).trim().split("\\s+");
                    String[] values = lines.get(i + 1).trim().split("\\s+");
                    for (int k = 1; k < names.length && k < values.length; k++) {
                        if (names[k].equals("RcvbufErrors")) {
                            return Long.parseLong(values[k]);
                        }
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    private static long snmp6() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/snmp6"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 2 && f[0].equals("Udp6RcvbufErrors")) {
                    return Long.parseLong(f[1]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
