package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link UdpSocketCounters} reads the kernel's own counters of a real socket: a socket nobody reads fills its
 * receive buffer, then the kernel drops what does not fit, and both show; a closed socket reads as nothing.
 * (Linux with the epoll transport, as the suite runs; elsewhere {@link UdpSocketCounters#of} is empty by design.)
 */
@Timeout(30)
class UdpSocketCountersTest {

    private final IoRuntime runtime = IoRuntime.create(1, "udp-counters-test");

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    void aSocketThatIsNotReadCountsItsQueuedBytesThenItsDrops() throws Exception {
        assertThat(runtime.epoll()).as("the suite runs on Linux with epoll").isTrue();
        Channel socket = unreadSocket();
        Channel quiet = unreadSocket();
        try {
            UdpSocketCounters counters = UdpSocketCounters.of(socket).orElseThrow();
            UdpSocketCounters both = UdpSocketCounters.of(List.of(socket, quiet)).orElseThrow();
            assertThat(counters.read()).contains(new UdpSocketCounters.Reading(0, 0));

            try (DatagramSocket sender = new DatagramSocket()) {
                byte[] datagram = new byte[1000];
                sender.send(new DatagramPacket(datagram, datagram.length, socket.localAddress()));
                await().atMost(Duration.ofSeconds(5)).until(() -> counters.read().orElseThrow().queuedBytes() > 0);
                assertThat(counters.read().orElseThrow().drops()).as("one datagram fits").isZero();

                // 2,000 kB against a buffer of a few tens of kB: most are dropped.
                for (int i = 0; i < 2_000; i++) {
                    sender.send(new DatagramPacket(datagram, datagram.length, socket.localAddress()));
                }
                sender.send(new DatagramPacket(datagram, datagram.length, quiet.localAddress()));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> counters.read().orElseThrow().drops() > 1_000);
            UdpSocketCounters.Reading full = counters.read().orElseThrow();
            assertThat(full.queuedBytes()).as("the buffer holds what fitted").isPositive();
            await().atMost(Duration.ofSeconds(5)).until(() -> both.read().orElseThrow().queuedBytes()
                    > full.queuedBytes());
            assertThat(both.read().orElseThrow().drops()).as("one scan sums both sockets; the quiet one dropped none")
                    .isEqualTo(full.drops());
            UdpSocketCounters merged = UdpSocketCounters.merged(List.of(counters,
                    UdpSocketCounters.of(quiet).orElseThrow(), counters)).orElseThrow();
            assertThat(merged.read()).as("merged counters count each socket once").isEqualTo(both.read());
            assertThat(UdpSocketCounters.merged(List.of())).isEmpty();

            socket.close().syncUninterruptibly();
            assertThat(counters.read()).as("a closed socket's line is gone").isEmpty();
            assertThat(both.read()).as("the socket still open").isPresent();
            quiet.close().syncUninterruptibly();
            assertThat(both.read()).as("none open").isEmpty();
        } finally {
            socket.close().syncUninterruptibly();
            quiet.close().syncUninterruptibly();
        }
    }

    /** An epoll UDP socket on loopback with a small receive buffer that nothing reads. */
    private Channel unreadSocket() {
        return runtime.datagramBootstrap(1200)
                .option(ChannelOption.AUTO_READ, false) // nothing reads: the kernel keeps, then drops
                .option(ChannelOption.SO_RCVBUF, 16 << 10)
                .handler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).syncUninterruptibly().channel();
    }

    @Test
    void aSocketWithoutAReachableDescriptorHasNoCounters() {
        Channel nio = new NioDatagramChannel(); // NIO hides its descriptor
        try {
            assertThat(UdpSocketCounters.of(nio)).isEmpty();
        } finally {
            nio.unsafe().closeForcibly();
        }
    }
}
