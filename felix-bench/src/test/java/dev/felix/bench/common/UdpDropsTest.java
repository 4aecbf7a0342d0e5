package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link UdpDrops} sees the drops of a socket nobody reads (machine-wide, so at least those). */
@Timeout(30)
class UdpDropsTest {

    @Test
    void countsWhatASocketThatIsNotReadDrops() throws Exception {
        long before = UdpDrops.sinceBoot();
        assertThat(before).as("Linux shows the count").isNotNegative();
        try (DatagramSocket unread = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                DatagramSocket sender = new DatagramSocket()) {
            unread.setReceiveBufferSize(4096);
            byte[] datagram = new byte[1000];
            for (int i = 0; i < 2_000; i++) {
                sender.send(new DatagramPacket(datagram, datagram.length, unread.getLocalSocketAddress()));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> UdpDrops.sinceBoot() - before >= 1_000);
        }
    }
}
