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
 * What the kernel counts for one UDP socket: the datagrams it dropped because the socket's receive buffer was full,
 * and the bytes waiting in that buffer now.
 *
 * <p><b>Why it matters.</b> QUIC resends what the kernel dropped, so a drop loses no data, but each one costs its
 * connection a loss-detection delay and a smaller congestion window. Drops mean the socket's event loop fell behind
 * its datagrams: a busy loop, a receive buffer too small for the burst ({@code net.core.rmem_max} caps the 4 MiB a
 * socket asks for), or too many connections on one socket. Nothing else in the process can see them.
 *
 * <p><b>Where the numbers come from.</b> Linux lists every UDP socket of the network namespace in
 * {@code /proc/net/udp} and {@code /proc/net/udp6}, with its receive queue and its drop count; the socket is found
 * there by its inode, which {@code /proc/self/fd} gives for the socket's file descriptor. On another system, or for
 * a socket of Netty's NIO transport (whose descriptor is not reachable), {@link #of} gives nothing.
 *
 * <p><b>Threads and cost.</b> Thread-safe and immutable. A {@link #read} scans both files, one line per UDP socket
 * of the namespace: read it when metrics are scraped, never on the data path. Touches no buffers.
 */
public final class UdpSocketCounters {

    /** One reading: datagrams dropped since the socket opened, and bytes in its receive queue now. */
    public record Reading(long drops, long queuedBytes) {
        /** The sum of two sockets' readings. */
        public Reading plus(Reading other) {
            return new Reading(drops + other.drops, queuedBytes + other.queuedBytes);
        }
    }

    private static final Path[] TABLES = {Path.of("/proc/net/udp"), Path.of("/proc/net/udp6")};
    /** Columns of a socket's line in those tables (after the header line). */
    private static final int QUEUES = 4;
    private static final int INODE = 9;
    private static final int DROPS = 12;

    private final long inode;

    private UdpSocketCounters(long inode) {
        this.inode = inode;
    }

    /**
     * The counters of {@code channel}'s socket, found while it is open; nothing when this system or transport cannot
     * tell (see the class comment). Costs one {@code readlink}; a {@link #read} that finds no line (a kernel without
     * the tables) is empty too.
     */
    public static Optional<UdpSocketCounters> of(Channel channel) {
        if (!(channel instanceof UnixChannel unix) || !unix.isOpen()) {
            return Optional.empty();
        }
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/fd/" + unix.fd().intValue())).toString();
            if (!link.startsWith("socket:[") || !link.endsWith("]")) {
                return Optional.empty();
            }
            // Only the inode now (one readlink per socket opened); the tables are scanned when someone reads.
            return Optional.of(new UdpSocketCounters(Long.parseLong(link.substring("socket:[".length(),
                    link.length() - 1))));
        } catch (IOException | UnsupportedOperationException | NumberFormatException e) {
            return Optional.empty(); // no /proc: not Linux, or a restricted one
        }
    }

    /** The socket's counters now; nothing once it is closed (its line is gone). */
    public Optional<Reading> read() {
        for (Path table : TABLES) {
            try (BufferedReader lines = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
                lines.readLine(); // the header
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > DROPS && Long.parseLong(f[INODE]) == inode) {
                        String queues = f[QUEUES]; // tx_queue:rx_queue, hexadecimal
                        long queued = Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16);
                        return Optional.of(new Reading(Long.parseLong(f[DROPS]), queued));
                    }
                }
            } catch (NoSuchFileException e) {
                // no IPv6 (or no IPv4) table on this host: look in the other one
            } catch (IOException | NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The sum over several sockets that are still open; nothing when none is. */
    public static Optional<Reading> sum(Collection<UdpSocketCounters> sockets) {
        Reading total = null;
        for (UdpSocketCounters s : sockets) {
            Optional<Reading> r = s.read();
            if (r.isPresent()) {
                total = total == null ? r.get() : total.plus(r.get());
            }
        }
        return Optional.ofNullable(total);
    }

    @Override
    public String toString() {
        return "UDP socket inode " + inode;
    }
}
