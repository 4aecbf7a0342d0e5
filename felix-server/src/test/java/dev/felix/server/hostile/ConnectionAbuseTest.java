package dev.felix.server.hostile;

import static dev.felix.server.hostile.HostileBytes.concat;
import static dev.felix.server.hostile.HostileBytes.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import dev.felix.server.metrics.Closes;
import dev.felix.wire.AckMode;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections that misbehave as a whole: silent ones, ones that stop mid-frame, ones that close
 * abruptly or vanish. None of them affects other connections, and the broker forgets each of them
 * (its connections and subscriptions gauges return to where they were).
 *
 * <p>The broker here has a short idle timeout ({@value #IDLE_MS} ms) so that silent and vanished
 * peers are reaped within the test; the well-behaved SDK clients keep their connections alive.
 */
@Timeout(60)
class ConnectionAbuseTest {

    private static final int IDLE_MS = 1500;
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private TestBroker start() throws Exception {
        return TestBroker.start(dir, Map.of("idle_timeout_ms", Integer.toString(IDLE_MS)));
    }

    /**
     * A connection that sends nothing; one that opens a stream and sends nothing; one that stops in the
     * middle of a header, and one in the middle of a payload, and then stay silent; and one whose
     * client vanishes (its UDP socket closes, no CONNECTION_CLOSE) in the middle of a frame, after
     * subscribing. The others keep working meanwhile, and the broker reaps them all by idle timeout.
     */
    @Test
    void silentStalledAndVanishedConnectionsAffectNobodyAndAreReaped() throws Exception {
        try (TestBroker broker = start();
                Bystander bystander = Bystander.start(broker, "conn-bystander", ConnectionAbuseTest::keepAlive);
                RawFelixClient silentClient = RawFelixClient.create(broker.server())) {
            bystander.awaitProgress(10);
            double connectionsBaseline = BrokerGauges.connections(broker);
            double subscriptionsBaseline = BrokerGauges.subscriptions(broker);

            RawConnection silent = silentClient.connect();
            RawConnection streamButNothingSent = silentClient.connect();
            streamButNothingSent.open();
            RawConnection midHeader = silentClient.connect();
            RawStream h = midHeader.authenticated(Capabilities.ALL);
            h.send(new byte[] {0x46, 0x4C, 0x58}); // 3 bytes of a header, then silence
            RawConnection midPayload = silentClient.connect();
            RawStream p = midPayload.authenticated(Capabilities.ALL);
            p.send(concat(header(0, 10_000), new byte[100])); // 100 of 10,000 payload bytes, then silence

            RawFelixClient vanishingClient = RawFelixClient.create(broker.server());
            RawConnection vanishing = vanishingClient.connect();
            RawStream sub = vanishing.authenticated(FrameFlags.KNOWN);
            sub.send(new Message.Subscribe("t1", "default", "conn-bystander", null, null, null, null, null, null));
            assertThat(sub.frame(1).message()).isInstanceOf(Message.Subscribed.class);
            RawStream half = vanishing.authenticated(Capabilities.ALL);
            half.send(concat(header(0, 5000), "{\"type\":\"publish\"".getBytes(StandardCharsets.US_ASCII)));
            assertThat(BrokerGauges.connections(broker)).isEqualTo(connectionsBaseline + 5);
            assertThat(BrokerGauges.subscriptions(broker)).isEqualTo(subscriptionsBaseline + 1);
            vanishingClient.close(); // the socket is gone: the broker is told nothing

            // Everyone else is unaffected meanwhile.
            assertFreshConnectionWorks(broker);
            bystander.awaitProgress(50);

            // The broker forgets all of them once they have been idle for the idle timeout.
            await().atMost(Duration.ofSeconds(15)).until(() -> BrokerGauges.connections(broker) == connectionsBaseline);
            BrokerGauges.awaitSubscriptions(broker, subscriptionsBaseline);
            assertThat(silent.isActive()).isFalse();

            assertFreshConnectionWorks(broker);
            assertThat(bystander.stopAndVerify()).isPositive();
        }
    }

    /**
     * A client closes its connection abruptly (CONNECTION_CLOSE with an application error) while
     * frames are half sent on several streams and it holds a subscription; another resets a stream in
     * the middle of a frame. The broker drops exactly that connection (or stream) and its subscription;
     * nobody else notices.
     */
    @Test
    void abruptCloseAndResetMidFrameAffectNobody() throws Exception {
        try (TestBroker broker = start();
                Bystander bystander = Bystander.start(broker, "abrupt-bystander", ConnectionAbuseTest::keepAlive);
                RawFelixClient raw = RawFelixClient.create(broker.server())) {
            bystander.awaitProgress(10);
            double connectionsBaseline = BrokerGauges.connections(broker);
            double subscriptionsBaseline = BrokerGauges.subscriptions(broker);

            // A stream reset mid-frame: only that stream ends; its connection carries on.
            RawConnection resetter = raw.connect();
            RawStream r = resetter.authenticated(Capabilities.ALL);
            r.send(concat(header(0, 2000), new byte[500]));
            r.resetOutput(42);
            RawStream next = resetter.authenticated(Capabilities.ALL);
            next.send(new Message.Publish("t1", "default", "after-reset", HELLO, 1L, AckMode.PER_MESSAGE, null, null));
            assertThat(next.frame(1).message()).isInstanceOf(Message.PublishOk.class);

            // Abrupt application close with half-sent frames and a live subscription.
            for (int round = 0; round < 5; round++) {
                RawConnection abrupt = raw.connect();
                RawStream sub = abrupt.authenticated(FrameFlags.KNOWN);
                sub.send(new Message.Subscribe("t1", "default", "abrupt-bystander", null, null, null, null, null,
                        null));
                assertThat(sub.frame(1).message()).isInstanceOf(Message.Subscribed.class);
                for (int i = 0; i < 10; i++) {
                    RawStream s = abrupt.open();
                    s.send(concat(WireCodec.encodeFrame(RawConnection.auth(Capabilities.ALL)), header(0, 100_000),
                            new byte[1000 * (i + 1)]));
                }
                RawStream acked = abrupt.authenticated(Capabilities.ALL);
                acked.send(concat(WireCodec.encodeFrame(new Message.Publish("t1", "default", "abrupt-other", HELLO,
                        7L, AckMode.PER_MESSAGE, null, null)), header(FrameFlags.BINARY_PUBLISH_BATCH, 64)));
                assertThat(BrokerGauges.subscriptions(broker)).isEqualTo(subscriptionsBaseline + 1);
                abrupt.abort(0x1234, "client crashed");
                BrokerGauges.awaitConnections(broker, connectionsBaseline + 1); // the resetter remains
                BrokerGauges.awaitSubscriptions(broker, subscriptionsBaseline);
                // A round trip on the resetter each round: it keeps working, and is never idle for the short
                // idle timeout however long a round takes on a busy machine.
                RawStream alive = resetter.authenticated(Capabilities.ALL);
                alive.send(new Message.Publish("t1", "default", "after-reset", HELLO, 100L + round,
                        AckMode.PER_MESSAGE, null, null));
                assertThat(alive.frame(1).message()).isInstanceOf(Message.PublishOk.class);
            }

            assertThat(resetter.isActive()).isTrue();
            RawStream again = resetter.authenticated(Capabilities.ALL);
            again.send(new Message.Publish("t1", "default", "after-reset", HELLO, 2L, AckMode.PER_MESSAGE, null, null));
            assertThat(again.frame(1).message()).isInstanceOf(Message.PublishOk.class);
            resetter.close();
            BrokerGauges.awaitConnections(broker, connectionsBaseline);

            assertFreshConnectionWorks(broker);
            assertThat(bystander.stopAndVerify()).isPositive();
        }
    }

    /**
     * A clean close with no reason phrase (code 0, empty reason: what most QUIC clients send) is the client's normal
     * close, counted as such at once; it is not a transport error, and not left for the transport to account.
     */
    @Test
    void aCloseWithoutAReasonPhrase_isTheClientsNormalClose() throws Exception {
        try (TestBroker broker = start(); RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            c.authenticated(Capabilities.ALL);
            c.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.server().metrics().closes
                    .connectionCount(Closes.By.CLIENT, Closes.Reason.NORMAL) == 1);
            assertThat(broker.server().metrics().connectionErrors.sum()).isZero();
            assertThat(broker.server().metrics().closes.connectionCount(Closes.By.TRANSPORT, Closes.Reason.RESET))
                    .isZero();
        }
    }

    /** SDK clients ping well inside the broker's short idle timeout. */
    private static void keepAlive(dev.felix.client.ClientConfig.Builder b) {
        b.keepAlive(Duration.ofMillis(200));
    }

    /** A new connection authenticates and gets an acked publish through. */
    private static void assertFreshConnectionWorks(TestBroker broker) {
        try (RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            RawStream s = c.authenticated(Capabilities.ALL);
            s.send(new Message.Publish("t1", "default", "fresh", HELLO, 1L, AckMode.PER_MESSAGE, null, null));
            assertThat(s.frame(1).message()).isInstanceOf(Message.PublishOk.class);
            c.close();
        }
    }
}
