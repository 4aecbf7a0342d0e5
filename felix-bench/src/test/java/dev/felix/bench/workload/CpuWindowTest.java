package dev.felix.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.bench.common.UdpDrops;
import dev.felix.bench.system.Target;
import dev.felix.bench.system.TargetFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuWindowTest {

    /** A target whose broker "uses" exactly one second of CPU between two readings. */
    private static Target brokerElsewhere(boolean inThisProcess) {
        long[] reads = {0};
        return new FakeTarget(-1, true) {
            @Override
            public boolean brokerInThisProcess() {
                return inThisProcess;
            }

            @Override
            public long brokerCpuNanos() {
                return reads[0]++ == 0 ? 5_000_000_000L : 6_000_000_000L;
            }
        };
    }

    @Test
    void aPeersCpuIsAddedToThisProcess_anInProcessBrokersIsNot() {
        CpuWindow peer = new CpuWindow(brokerElsewhere(false));
        peer.start();
        peer.stop();
        assertThat(peer.brokerNanos()).isEqualTo(1_000_000_000L);
        assertThat(peer.totalNanos()).isGreaterThanOrEqualTo(1_000_000_000L); // + this JVM's own share

        CpuWindow inProcess = new CpuWindow(brokerElsewhere(true));
        inProcess.start();
        inProcess.stop();
        assertThat(inProcess.brokerNanos()).isEqualTo(1_000_000_000L);
        // Already inside this process's CPU: counting it again would double it.
        assertThat(inProcess.totalNanos()).isLessThan(1_000_000_000L);
    }

    @Test
    void countsTheUdpDatagramsDroppedInsideTheWindow_notBefore() throws Exception {
        try (DatagramSocket unread = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                DatagramSocket sender = new DatagramSocket()) {
            unread.setReceiveBufferSize(4096);
            byte[] datagram = new byte[1000];
            long before = UdpDrops.sinceBoot();
            for (int i = 0; i < 500; i++) { // fills the buffer and drops before the window opens
                sender.send(new DatagramPacket(datagram, datagram.length, unread.getLocalSocketAddress()));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> UdpDrops.sinceBoot() - before >= 400);
            CpuWindow window = new CpuWindow(brokerElsewhere(true));
            window.start();
            long opened = UdpDrops.sinceBoot();
            for (int i = 0; i < 2_000; i++) { // every one dropped: nobody reads the full buffer
                sender.send(new DatagramPacket(datagram, datagram.length, unread.getLocalSocketAddress()));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> UdpDrops.sinceBoot() - opened >= 2_000);
            window.stop();
            // Machine-wide, so another process's drops may add a few; the 400+ before the window are not in it.
            assertThat(window.udpDrops()).isBetween(2_000L, 2_300L);
        }
    }

    @Test
    void aMissingPeer_isSkippedWithTheReason_andTheRestRuns() {
        TargetFactory missing = new TargetFactory() {
            @Override
            public String name() {
                return "nats";
            }

            @Override
            public String unavailable() {
                return "nats-server is not installed (run bench/peers/install.sh)";
            }

            @Override
            public Target start() {
                throw new AssertionError("must not be started");
            }
        };
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Suite.Outcome o = Suite.run(new LatencyWorkload(new LatencyWorkload.Options(0, 20, 1), 0),
                List.of(FakeTarget.factory("felix", -1, true), missing), List.of(new Cell(0, 1)), 1,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(o.targets()).containsExactly("felix");
        assertThat(o.skipped()).containsEntry("nats", "nats-server is not installed (run bench/peers/install.sh)");
        assertThat(o.ok()).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("skipping nats").contains("install.sh");
    }
}
