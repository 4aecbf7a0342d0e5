package dev.felix.server.hostile;

import static dev.felix.server.hostile.HostileBytes.batchHead;
import static dev.felix.server.hostile.HostileBytes.blob;
import static dev.felix.server.hostile.HostileBytes.concat;
import static dev.felix.server.hostile.HostileBytes.frame;
import static dev.felix.server.hostile.HostileBytes.header;
import static dev.felix.server.hostile.HostileBytes.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Item;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.server.TestBroker;
import dev.felix.wire.AckMode;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import io.netty.handler.codec.quic.QuicStreamType;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker releases everything an abused stream held: the QUIC stream itself (stream credit comes
 * back to the client), subscriptions, connections, and heap.
 *
 * <p>The broker here allows only {@value #MAX_STREAMS} concurrent streams of each kind per connection,
 * so a stream the broker never fully releases shows up quickly: the client runs out of stream credit
 * ({@code peerAllowedStreams} stays at 0) instead of the leak hiding until the default 4096.
 */
@Timeout(60)
class StreamResourceTest {

    private static final int MAX_STREAMS = 64;
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private TestBroker start() throws Exception {
        return TestBroker.start(dir, Map.of("max_streams", Integer.toString(MAX_STREAMS)));
    }

    /**
     * A hostile client sends garbage and ends its side at once (FIN, or Netty's {@code close()}),
     * without reading the broker's reply. Each offending stream must be released once both sides have
     * ended, or the client would run out of stream credit after {@value #MAX_STREAMS} streams. The same
     * for unidirectional streams, where no reply is possible.
     */
    @Test
    void offendingStreamsAreReleasedOnceTheClientEndsItsSideEvenUnread() throws Exception {
        try (TestBroker broker = start(); RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            for (int i = 0; i < MAX_STREAMS * 4; i++) {
                RawStream s = openWhenAllowed(c);
                s.send(i % 2 == 0 ? "garbage, not a frame at all".getBytes(StandardCharsets.US_ASCII)
                        : concat(auth(), header(0x0400, 0xFFFF_FFFFL))); // unknown flag, absurd length
                if (i % 3 == 0) {
                    s.close(); // Netty: FIN
                } else {
                    s.finish();
                }
                RawStream u = openUniWhenAllowed(c);
                u.send(concat(auth(), "garbage".getBytes(StandardCharsets.US_ASCII)));
                u.finish();
            }
            assertUsable(c);
        }
    }

    /** Streams the client ends after the broker's error and FIN, having read them, are released. */
    @Test
    void offendingStreamsAreReleasedWhenTheClientEndsThemAfterTheError() throws Exception {
        try (TestBroker broker = start(); RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            for (int i = 0; i < MAX_STREAMS * 4; i++) {
                RawStream s = openWhenAllowed(c);
                s.send(concat(auth(), json("{\"type\":\"teleport\"}")));
                assertThat(s.frame(1).message()).isInstanceOf(Message.ErrorMessage.class);
                assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
                s.finish();
            }
            assertUsable(c);
        }
    }

    /**
     * A client that finishes its side (FIN) after its requests — as the SDK does when it closes a
     * publisher or a keep-alive stream — and then does nothing else. The broker answers what is owed
     * and finishes its side too, so the stream is released. Where the client's FIN came with its last
     * request, the broker's FIN comes with the last ack, in the same STREAM frame: that is the form
     * that survives a lost packet (a bare FIN is not retransmitted by quiche), so the test can wait
     * for it on a loaded machine.
     */
    @Test
    void streamsTheClientFinishesAreFinishedByTheBrokerOnceItsRepliesAreWritten() throws Exception {
        try (TestBroker broker = start(); RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            AtomicLong ids = new AtomicLong();
            List<RawStream> withAcks = new ArrayList<>();
            for (int i = 0; i < MAX_STREAMS * 4; i++) {
                RawStream s = openWhenAllowed(c);
                s.send(RawConnection.auth(Capabilities.ALL));
                if (i % 4 == 1) { // acked publishes then FIN: every ack must still arrive before the broker's FIN
                    for (int k = 0; k < 3; k++) {
                        Message.Publish p = new Message.Publish("t1", "default", "fin", HELLO, ids.incrementAndGet(),
                                AckMode.PER_MESSAGE, null, null);
                        if (k < 2) {
                            s.send(p);
                        } else {
                            s.sendLast(p); // our FIN with the last publish, so the broker's can ride on the last ack
                        }
                    }
                    withAcks.add(s);
                    continue;
                } else if (i % 4 == 2) { // an in-band refusal, then FIN
                    s.send(json("{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\","
                            + "\"stream\":\"fin\",\"payload\":\"aGVsbG8=\"}"));
                } else if (i % 4 == 3) { // unacknowledged publish then FIN
                    s.send(WireCodec.encodeFrame(new Message.Publish("t1", "default", "fin", HELLO, null,
                            AckMode.NONE, null, null)));
                }
                s.finish();
            }
            for (RawStream s : withAcks) {
                assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
                List<RawStream.Received> frames = s.frames();
                assertThat(frames).hasSize(4);
                assertThat(frames.subList(1, 4))
                        .allSatisfy(f -> assertThat(f.message()).isInstanceOf(Message.PublishOk.class));
            }
            assertUsable(c);
        }
    }

    /**
     * The SDK pattern for short-lived streams (its keep-alive round trip, a closed {@code Publisher}):
     * authenticate, maybe publish, then close the stream channel, which only sends FIN. Publishers
     * opened and closed over and over on one client must not exhaust the connection's stream credit.
     */
    @Test
    void sdkPublishersOpenedAndClosedOverAndOverDoNotExhaustStreamCredit() throws Exception {
        try (TestBroker broker = start();
                FelixClient client = broker.connect(b -> b.requestTimeout(Duration.ofSeconds(5)))) {
            StreamRef ref = StreamRef.parse("t1/default/open-close");
            int rounds = MAX_STREAMS * 4;
            for (int i = 0; i < rounds; i++) {
                try (var p = client.publisher(ref)) {
                    assertThat(p.publish(HELLO).firstOffset()).isEqualTo(i);
                }
            }
            Subscription s = client.subscribe(SubscribeOptions.of(ref).fromEarliest());
            for (long i = 0; i < rounds; i++) {
                Item item = s.next(Duration.ofSeconds(5));
                long expected = i;
                assertThat(item).isInstanceOfSatisfying(Event.class, e -> assertThat(e.offset()).isEqualTo(expected));
            }
            s.close();
        }
    }

    /** The same pattern on the raw client: auth, {@code auth_ok}, close (FIN only), many times. */
    @Test
    void authThenCloseOverAndOverDoesNotExhaustStreamCredit() throws Exception {
        try (TestBroker broker = start(); RawFelixClient raw = RawFelixClient.create(broker.server())) {
            RawConnection c = raw.connect();
            for (int i = 0; i < MAX_STREAMS * 4; i++) {
                RawStream s = openWhenAllowed(c);
                s.send(RawConnection.auth(Capabilities.ALL));
                s.frame(0);
                s.close(); // Netty: FIN, nothing else
            }
            assertUsable(c);
        }
    }

    // ------------------------------------------------------------------ heap

    /** The hostile inputs the heap test cycles through, each sent on a fresh stream. */
    static final List<Function<Integer, byte[]>> ABUSE = List.of(
            i -> "garbage garbage garbage".getBytes(StandardCharsets.US_ASCII),
            i -> concat(auth(), header(0x0040 << (i % 10), 4), "{}{}".getBytes()),
            i -> concat(auth(), header(0, 0xFFFF_FFFFL)),
            i -> concat(auth(), header(0, 1_000_000), new byte[1000]), // then FIN: truncated
            i -> concat(auth(), json("{\"type\":\"publish\",")),
            i -> concat(auth(), json("{\"type\":\"no_such_type\"}")),
            i -> concat(auth(), json("{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\","
                    + "\"stream\":\"h\",\"payload\":\"%%%%\",\"ack\":\"none\"}")),
            i -> concat(auth(), frame(FrameFlags.BINARY_PUBLISH_BATCH, concat(batchHead("t1", "default", "h", 99_999),
                    blob(HELLO)))),
            i -> WireCodec.encodeFrame(new Message.Publish("t1", "default", "h", HELLO, 1L, AckMode.PER_MESSAGE, null,
                    null)), // before auth
            i -> concat(auth(), auth()),
            i -> concat(auth(), WireCodec.encodeFrame(new Message.Event("t1", "default", "h", HELLO, 1L))),
            i -> concat(auth(), WireCodec.encodeFrame(new Message.Subscribe("t1", "default", "bad name", null, null,
                    null, null, null, null))),
            i -> concat(auth(), frame(FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED,
                    concat(HostileBytes.ackedPrefix(i, 1), batchHead("t1", "default", "h", 5), blob(HELLO)))),
            // a valid subscribe whose client then vanishes with the connection (no lifeline)
            i -> concat(WireCodec.encodeFrame(RawConnection.auth(FrameFlags.KNOWN)), WireCodec.encodeFrame(
                    new Message.Subscribe("t1", "default", "h", null, null, null, null, null, null))));

    private static byte[] auth() {
        return WireCodec.encodeFrame(RawConnection.auth(Capabilities.ALL));
    }

    /**
     * Four connections each abuse 1,000 streams in waves of {@value #MAX_STREAMS}/2, so each
     * connection's {@value #MAX_STREAMS} stream credits must come back again and again; every stream
     * gets its answer and is then ended by the client (FIN, close or reset). Afterwards, with the
     * connections closed, the heap (after full GCs) is where it was, the broker's connection and
     * subscription gauges are back at their baseline, the bystander saw every offset, and the broker
     * still serves a new publish/subscribe.
     */
    @Test
    void thousandsOfAbusedStreamsLeaveHeapSubscriptionsAndConnectionsWhereTheyWere() throws Exception {
        try (TestBroker broker = start(); Bystander bystander = Bystander.start(broker, "heap-bystander")) {
            bystander.awaitProgress(10);
            double connectionsBaseline = BrokerGauges.connections(broker);
            double subscriptionsBaseline = BrokerGauges.subscriptions(broker);

            abuse(broker, 2, 300); // warm-up: classes, JIT, allocator arenas
            long before = settledHeap();
            int streams = abuse(broker, 4, 1000);
            long after = settledHeap();

            BrokerGauges.awaitConnections(broker, connectionsBaseline);
            BrokerGauges.awaitSubscriptions(broker, subscriptionsBaseline);
            System.out.printf("hostile heap: %d abused streams, heap %.1f MiB -> %.1f MiB (%+.1f MiB)%n", streams,
                    before / 1048576.0, after / 1048576.0, (after - before) / 1048576.0);
            assertThat(after - before).as("heap growth after %d abused streams", streams).isLessThan(32L << 20);

            long total = bystander.stopAndVerify();
            assertThat(total).isPositive();
            // The broker core still works end to end.
            try (FelixClient c = broker.connect()) {
                StreamRef ref = StreamRef.parse("t1/default/after-abuse");
                Subscription s = c.subscribe(SubscribeOptions.of(ref));
                assertThat(c.publisher(ref).publish(HELLO).firstOffset()).isZero();
                assertThat(s.next(Duration.ofSeconds(5))).isInstanceOf(Event.class);
            }
            assertThat(broker.server().broker().find(new dev.felix.core.StreamName("t1", "default", "after-abuse")))
                    .isPresent();
        }
    }

    /**
     * {@code perConnection} hostile streams on each of {@code connections} connections, cycling through
     * {@link #ABUSE}, at most {@value #MAX_STREAMS}/2 in flight per connection; every stream's reply or
     * end is awaited. The connections are then closed. Returns the number of streams abused.
     */
    private static int abuse(TestBroker broker, int connections, int perConnection) {
        int n = 0;
        try (RawFelixClient raw = RawFelixClient.create(broker.server())) {
            List<RawConnection> conns = new ArrayList<>();
            for (int k = 0; k < connections; k++) {
                conns.add(raw.connect());
            }
            for (int wave = 0; wave < perConnection; wave += MAX_STREAMS / 2) {
                List<RawStream> inFlight = new ArrayList<>();
                List<Integer> kinds = new ArrayList<>();
                for (RawConnection c : conns) {
                    for (int j = wave; j < Math.min(perConnection, wave + MAX_STREAMS / 2); j++) {
                        int kind = j % ABUSE.size();
                        RawStream s = openWhenAllowed(c);
                        s.send(ABUSE.get(kind).apply(j));
                        if (kind == 3) {
                            s.finish();
                        }
                        inFlight.add(s);
                        kinds.add(kind);
                        n++;
                    }
                }
                for (RawStream s : inFlight) {
                    s.awaitFrames(1); // every abuse gets an answer (an error, an ack or subscribed)
                }
                // Then the client ends each stream without reading further, in one of three ways.
                for (int idx = 0; idx < inFlight.size(); idx++) {
                    RawStream s = inFlight.get(idx);
                    int kind = kinds.get(idx);
                    if (kind == 12 || kind == 13) {
                        s.awaitFrames(2); // an in-band refusal, a subscribe: the broker keeps these open
                    }
                    switch (idx % 3) {
                        case 0 -> s.finish();
                        case 1 -> s.close();
                        default -> s.resetOutput(7);
                    }
                }
            }
            for (RawConnection c : conns) {
                assertUsable(c);
                c.close();
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ helpers

    private static RawStream openUniWhenAllowed(RawConnection c) {
        if (c.channel().peerAllowedStreams(QuicStreamType.UNIDIRECTIONAL) <= 0) {
            await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .failFast("connection closed", () -> !c.isActive())
                    .until(() -> c.channel().peerAllowedStreams(QuicStreamType.UNIDIRECTIONAL) > 0);
        }
        return c.openUni();
    }

    /** Opens a stream once the broker grants credit for one; fails if credit never comes back. */
    private static RawStream openWhenAllowed(RawConnection c) {
        if (c.channel().peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) <= 0) {
            await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .failFast("connection closed", () -> !c.isActive())
                    .until(() -> c.channel().peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) > 0);
        }
        return c.open();
    }

    /** A fresh stream on {@code c} still authenticates and publishes with an ack. */
    private static void assertUsable(RawConnection c) {
        RawStream s = openWhenAllowed(c);
        s.send(RawConnection.auth(Capabilities.ALL));
        s.send(new Message.Publish("t1", "default", "usable", HELLO, 1L, AckMode.PER_MESSAGE, null, null));
        assertThat(s.frame(1).message()).isInstanceOf(Message.PublishOk.class);
        s.finish();
    }

    /** Used heap after full collections, once two consecutive readings agree within 1 MiB. */
    private static long settledHeap() {
        long[] last = {Long.MAX_VALUE};
        long[] now = {0};
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            now[0] = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            boolean stable = Math.abs(now[0] - last[0]) < (1L << 20);
            last[0] = now[0];
            return stable;
        });
        return now[0];
    }
}
