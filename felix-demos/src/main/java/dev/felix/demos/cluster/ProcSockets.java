package dev.felix.demos.cluster;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Which process holds a TCP socket on this machine, from Linux' {@code /proc}: {@code /proc/net/tcp} and
 * {@code tcp6} map a connection's ports to its socket's inode, and {@code /proc/PID/fd} lists the sockets a process
 * holds as {@code socket:[inode]}. For {@link TcpProxy}, to tell the node processes' connections apart.
 */
final class ProcSockets {

    private ProcSockets() {
    }

    /**
     * The inode of the socket whose local port is {@code localPort} and remote port {@code remotePort} (loopback
     * connections appear once per side; this picks the side with these ports), or -1 when there is none.
     */
    static long inodeOf(int localPort, int remotePort) {
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException e) {
                continue; // no IPv6, or not Linux
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...; st 01 is
                // ESTABLISHED (a closed socket in TIME_WAIT may have the same ports, and inode 0)
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("01") && port(f[1]) == localPort && port(f[2]) == remotePort) {
                    long inode = Long.parseLong(f[9]);
                    if (inode > 0) {
                        return inode;
                    }
                }
            }
        }
        return -1;
    }

    /**
     * Whether process {@code pid} holds the socket {@code inode}; false when there is no such process.
     *
     * @throws java.io.UncheckedIOException when the process exists but its descriptors cannot be read (a partition
     *         that silently missed its connections would prove nothing)
     */
    static boolean holds(long pid, long inode) {
        String wanted = "socket:[" + inode + "]";
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).toString().equals(wanted)) {
                        return true;
                    }
                } catch (IOException e) {
                    // closed since the listing
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return false; // no such process (any more)
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read the descriptors of process " + pid, e);
        }
        return false;
    }

    /** The port of a {@code /proc/net/tcp} address ({@code 0100007F:1F90}, hex). */
    private static int port(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? -1 : Integer.parseInt(address.substring(colon + 1), 16);
    }
}
