package dev.felix.transport;

import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;

/**
 * What the kernel counts for some UDP sockets (one client's, or every socket of a listener): the datagrams it
 * dropped because a socket's receive buffer was full, and the bytes waiting in those buffers now, summed.
 *
 * <p><b>Why it matters.</b> QUIC resends what the kernel dropped, so a drop loses no data, but each one costs its
 * connection a loss-detection delay and a smaller congestion window. Drops mean the socket's event loop fell behind
 * its datagrams: a busy loop, a receive buffer too small for the burst ({@code net.core.rmem_max} caps the 4 MiB a
 * socket asks for), or too many connections on one socket. Nothing else in the process can see them.
 *
 * <p><b>Where the numbers come from.</b> Linux lists every UDP socket of the network namespace in
 * {@code /proc/net/udp} and {@code /proc/net/udp6}, with its receive queue and its drop count; a socket is found
 * there by its inode, which {@code /proc/self/fd} gives for the socket's file descriptor. On another system, or for
 * a socket of Netty's NIO transport (whose descriptor is not reachable), {@link #of} gives nothing.
 *
 * <p><b>Threads and cost.</b> Thread-safe and immutable. A {@link #read} scans both files once, however many
 * sockets it covers (a line per UDP socket of the namespace): read it when metrics are scraped, never on the data
 * path. Touches no buffers.
 */
public final class UdpSocketCounters {

    /** One reading: datagrams dropped since the sockets opened, and bytes in their receive queues now. */
    public record Reading(long drops, long queuedBytes) {
    }

    private static final Path[] TABLES = {Path.of("/proc/net/udp"), Path.of("/proc/net/udp6")};
    /** Columns of a socket's line in those tables (after the header line). */
    private static final int QUEUES = 4;
    private static final int INODE = 9;
    private static final int DROPS = 12;

    private final long[] inodes;

    private UdpSocketCounters(long[] inodes) {
        this.inodes = inodes;
    }

    /** The counters of {@code channel}'s socket; see {@link #of(Collection)}. */
    public static Optional<UdpSocketCounters> of(Channel channel) {
        return of(java.util.List.of(channel));
    }

    /**
     * The counters of these channels' sockets, found while they are open; nothing when this system or transport
     * cannot tell for any of them (see the class comment). Costs one {@code readlink} per socket; a {@link #read}
     * that finds no line (a kernel without the tables) is empty too.
     */
    public static Optional<UdpSocketCounters> of(Collection<? extends Channel> channels) {
        long[] inodes = channels.stream().mapToLong(UdpSocketCounters::inode).filter(i -> i >= 0).toArray();
        return inodes.length == 0 ? Optional.empty() : Optional.of(new UdpSocketCounters(inodes));
    }

    /**
     * The counters of every socket {@code parts} cover, read in one scan; nothing when {@code parts} is empty (a set
     * of sockets that changes, such as one per outgoing connection, is merged at each read).
     */
    public static Optional<UdpSocketCounters> merged(Collection<UdpSocketCounters> parts) {
        long[] inodes = parts.stream().flatMapToLong(c -> java.util.Arrays.stream(c.inodes)).distinct().toArray();
        return inodes.length == 0 ? Optional.empty() : Optional.of(new UdpSocketCounters(inodes));
    }

    /** The socket's inode, or -1 when it cannot be found. */
    private static long inode(Channel channel) {
        if (!(channel instanceof UnixChannel unix) || !unix.isOpen()) {
            return -1;
        }
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/fd/" + unix.fd().intValue())).toString();
            if (!link.startsWith("socket:[") || !link.endsWith("]")) {
                return -1;
            }
            return Long.parseLong(link.substring("socket:[".length(), link.length() - 1));
        } catch (IOException | UnsupportedOperationException | NumberFormatException e) {
            return -1; // no /proc: not Linux, or a restricted one
        }
    }

    /** The sockets' counters now, summed over those still open; nothing once none is (their lines are gone). */
    public Optional<Reading> read() {
        long drops = 0;
        long queued = 0;
        int found = 0;
        for (Path table : TABLES) {
            try (BufferedReader lines = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
                lines.readLine(); // the header
                for (String line = lines.readLine(); line != null && found < inodes.length; line = lines.readLine()) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > DROPS && covers(Long.parseLong(f[INODE]))) {
                        String queues = f[QUEUES]; // tx_queue:rx_queue, hexadecimal
                        queued += Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16);
                        drops += Long.parseLong(f[DROPS]);
                        found++;
                    }
                }
            } catch (NoSuchFileException e) {
                // no IPv6 (or no IPv4) table on this host: look in the other one
            } catch (IOException | NumberFormatException e) {
                return Optional.empty();
            }
        }
        return found == 0 ? Optional.empty() : Optional.of(new Reading(drops, queued));
    }

    private boolean covers(long inode) {
        for (long i : inodes) {
            if (i == inode) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "UDP socket inodes " + java.util.Arrays.toString(inodes);
    }
}
