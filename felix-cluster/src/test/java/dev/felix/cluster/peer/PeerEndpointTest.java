package dev.felix.cluster.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.ShardKey;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsMaterial;
import dev.felix.transport.TransportConfig;
import dev.felix.transport.UdpSocketCounters;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The replication endpoint over real QUIC on loopback: mutual TLS both ways, the peer known by the node id
 * its certificate names, messages both ways; a node whose certificate the cluster does not trust is
 * refused, and a node that proves to be another than the one asked for is dropped.
 */
@Timeout(60)
class PeerEndpointTest {

    private static final ShardKey KEY = ShardKey.stream(42, 3);

    /** Answers every fetch with a refusal naming who asked. */
    private static PeerEndpoint.Acceptor echo() {
        return stream -> new PeerStream.Listener() {
            @Override
            public void onMessage(PeerStream s, PeerMessage message) {
                s.send(new PeerMessage.Refused(PeerMessage.Refusal.UNKNOWN, 7, -1, "asked by " + s.remoteNode()));
            }

            @Override
            public void onClosed(PeerStream s, Throwable cause) {
            }
        };
    }

    private static final class Answer implements PeerStream.Listener {
        final CompletableFuture<PeerMessage> first = new CompletableFuture<>();

        @Override
        public void onMessage(PeerStream s, PeerMessage message) {
            first.complete(message);
        }

        @Override
        public void onClosed(PeerStream s, Throwable cause) {
            first.completeExceptionally(new IllegalStateException("closed", cause));
        }
    }

    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);
    private static final PeerMessage ANSWER_TO_B = new PeerMessage.Refused(PeerMessage.Refusal.UNKNOWN, 7, -1,
            "asked by node-b");

    /** A trust manager accepting the certificates of {@code nodes}. */
    private static X509TrustManager trusting(TlsMaterial... nodes) throws Exception {
        return (X509TrustManager) ClientTrust.certificates(java.util.Arrays.stream(nodes).map(n -> n.chain().get(0))
                .toList()).trustManager();
    }

    /** Opens a stream from {@code from} to node-a at {@code at}, sends a fetch, and returns node-a's answer. */
    private static PeerMessage askNodeA(PeerEndpoint from, InetSocketAddress at) throws Exception {
        Answer answer = new Answer();
        PeerStream s = from.open("node-a", at, answer).get(20, TimeUnit.SECONDS);
        assertThat(s.remoteNode()).isEqualTo("node-a");
        s.send(new PeerMessage.Fetch(KEY, 3, 10, 2, 9, 1 << 20, 100, -1));
        return answer.first.get(20, TimeUnit.SECONDS);
    }

    @Test
    void twoTrustedNodes_talk_andEachKnowsTheOtherByItsCertificate() throws Exception {
        TlsMaterial a = TlsMaterial.generateSelfSigned("node-a", List.of());
        TlsMaterial b = TlsMaterial.generateSelfSigned("node-b", List.of());
        X509TrustManager trust = trusting(a, b);
        try (PeerEndpoint na = PeerEndpoint.start(ANY, a, trust, TransportConfig.defaults(), echo());
                PeerEndpoint nb = PeerEndpoint.start(ANY, b, trust, TransportConfig.defaults(), echo())) {
            assertThat(askNodeA(nb, na.localAddress())).isEqualTo(ANSWER_TO_B);
        }
    }

    @Test
    void anOutgoingConnectionThatEnds_closesItsSocket_andItsUdpCountersAreRead() throws Exception {
        TlsMaterial a = TlsMaterial.generateSelfSigned("node-a", List.of());
        TlsMaterial b = TlsMaterial.generateSelfSigned("node-b", List.of());
        X509TrustManager trust = trusting(a, b);
        TransportConfig quickIdle = TransportConfig.defaults().withIdleTimeout(Duration.ofSeconds(1));
        try (PeerEndpoint nb = PeerEndpoint.start(ANY, b, trust, quickIdle, echo())) {
            assertThat(nb.outgoingUdpCounters()).as("no outgoing socket yet").contains(
                    new UdpSocketCounters.Reading(0, 0));
            PeerEndpoint na = PeerEndpoint.start(ANY, a, trust, quickIdle, echo());
            try {
                assertThat(askNodeA(nb, na.localAddress())).isEqualTo(ANSWER_TO_B);
                assertThat(nb.outgoingSockets()).isEqualTo(1);
                assertThat(nb.outgoingUdpCounters()).hasValueSatisfying(r -> assertThat(r.drops()).isZero());
            } finally {
                na.close(); // gone without a word: node-b's connection ends at its idle timeout
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> nb.outgoingSockets() == 0);
            assertThat(nb.outgoingUdpCounters()).as("read with no outgoing socket open").hasValueSatisfying(
                    r -> assertThat(r.drops()).isZero());

            // node-a back (at another port): the next open connects again, from a socket of its own.
            try (PeerEndpoint back = PeerEndpoint.start(ANY, a, trust, quickIdle, echo())) {
                assertThat(askNodeA(nb, back.localAddress())).isEqualTo(ANSWER_TO_B);
                assertThat(nb.outgoingSockets()).isEqualTo(1);
            }
        }
    }

    @Test
    void aNodeTheClusterDoesNotTrust_cannotConnect() throws Exception {
        TlsMaterial a = TlsMaterial.generateSelfSigned("node-a", List.of());
        TlsMaterial stranger = TlsMaterial.generateSelfSigned("node-b", List.of());
        X509TrustManager onlyA = (X509TrustManager) ClientTrust.certificates(List.of(a.chain().get(0))).trustManager();
        X509TrustManager strangerTrusts = (X509TrustManager) ClientTrust.certificates(
                List.of(a.chain().get(0), stranger.chain().get(0))).trustManager();
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        try (PeerEndpoint na = PeerEndpoint.start(any, a, onlyA, TransportConfig.defaults(), echo());
                PeerEndpoint ns = PeerEndpoint.start(any, stranger, strangerTrusts, TransportConfig.defaults(), echo())) {
            Answer answer = new Answer();
            CompletableFuture<PeerMessage> outcome = ns.open("node-a", na.localAddress(), answer).thenCompose(s -> {
                s.send(new PeerMessage.Fetch(KEY, 3, 10, 2, 9, 1 << 20, 100, -1));
                return answer.first;
            });
            assertThatThrownBy(() -> outcome.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        }
    }

    @Test
    void aNodeThatIsNotTheOneAskedFor_isDropped() throws Exception {
        TlsMaterial a = TlsMaterial.generateSelfSigned("node-a", List.of());
        TlsMaterial b = TlsMaterial.generateSelfSigned("node-b", List.of());
        X509TrustManager trust = (X509TrustManager) ClientTrust.certificates(List.of(a.chain().get(0), b.chain().get(0)))
                .trustManager();
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        try (PeerEndpoint na = PeerEndpoint.start(any, a, trust, TransportConfig.defaults(), echo());
                PeerEndpoint nb = PeerEndpoint.start(any, b, trust, TransportConfig.defaults(), echo())) {
            assertThatThrownBy(() -> nb.open("node-c", na.localAddress(), new Answer()).get(20, TimeUnit.SECONDS))
                    .hasMessageContaining("is 'node-a', not 'node-c'");
        }
    }
}
