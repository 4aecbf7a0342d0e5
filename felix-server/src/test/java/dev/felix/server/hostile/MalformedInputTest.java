package dev.felix.server.hostile;

import static dev.felix.server.hostile.HostileBytes.ackedPrefix;
import static dev.felix.server.hostile.HostileBytes.batchHead;
import static dev.felix.server.hostile.HostileBytes.blob;
import static dev.felix.server.hostile.HostileBytes.concat;
import static dev.felix.server.hostile.HostileBytes.frame;
import static dev.felix.server.hostile.HostileBytes.header;
import static dev.felix.server.hostile.HostileBytes.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.TestBroker;
import dev.felix.wire.AckMode;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.BinaryAckedPublishBatch;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile input on client-opened streams, over real QUIC on loopback.
 *
 * <p>Every malformed or out-of-place frame gets a typed {@code error} — {@code {"type":"error",
 * "message":...}} plus {@code "code"} exactly when the stream's {@code auth} asked for
 * {@link Capabilities#ERROR_CODES} — and then only that stream ends (FIN from the broker), except the
 * two refusals the protocol answers in-band (an acked JSON publish without {@code request_id}, an acked
 * binary publish with a malformed body), after which the stream is still usable. After every case the
 * same QUIC connection still serves a long-lived sibling stream and a freshly opened one, and a
 * well-behaved SDK client on other connections keeps publishing and receiving throughout; the last test
 * checks it saw every offset in order.
 *
 * <p>One broker, one raw connection and one bystander are shared by the whole class on purpose: the
 * abuse accumulates on them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(30)
class MalformedInputTest {

    /** How a client authenticates: which capabilities it asks for. */
    enum Dialect {
        /** Asks for every capability, including {@link Capabilities#ERROR_CODES}. */
        CODES(Capabilities.ALL),
        /** An upstream client: frame-flag capabilities only (63), so no error codes. */
        UPSTREAM(FrameFlags.KNOWN),
        /** A legacy client: no {@code client_flags} at all (gets {@code ok}, not {@code auth_ok}). */
        LEGACY(null);

        final Integer clientFlags;

        Dialect(Integer clientFlags) {
            this.clientFlags = clientFlags;
        }

        boolean codes() {
            return clientFlags != null && Capabilities.has(clientFlags, Capabilities.ERROR_CODES);
        }
    }

    private static final int MAX_FRAME_BYTES = 1 << 20;
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path dir;
    private TestBroker broker;
    private RawFelixClient raw;
    private RawConnection connection;
    private RawStream sibling;
    private Bystander bystander;
    private final AtomicLong requestIds = new AtomicLong(1000);
    private int casesRun;

    @BeforeAll
    void start() throws Exception {
        broker = TestBroker.start(dir, Map.of("max_frame_bytes", Integer.toString(MAX_FRAME_BYTES)));
        bystander = Bystander.start(broker, "bystander");
        raw = RawFelixClient.create(broker.server());
        connection = raw.connect();
        sibling = connection.authenticated(Capabilities.ALL);
    }

    @AfterAll
    void stop() throws Exception {
        if (bystander != null) {
            bystander.close();
        }
        if (connection != null) {
            connection.close();
        }
        if (raw != null) {
            raw.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    // ================================================================== cases that end the stream

    /** A hostile input sent after a successful {@code auth}; {@code finish}: FIN right after it. */
    record Hostile(String name, byte[] bytes, boolean finish, String messageFragment, String code) {
        Hostile(String name, byte[] bytes, boolean finish, String messageFragment) {
            this(name, bytes, finish, messageFragment, "bad_request");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Hostile> afterAuth() {
        List<Hostile> list = new ArrayList<>();
        // ---- header: refused from the 12 header bytes alone
        list.add(new Hostile("garbage, not FLX1",
                "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII), false, "bad magic"));
        list.add(new Hostile("version 2", concat(header(FrameHeader.MAGIC, 2, 0, 2), "{}".getBytes()), false,
                "unsupported version 2"));
        list.add(new Hostile("version 0", concat(header(FrameHeader.MAGIC, 0, 0, 2), "{}".getBytes()), false,
                "unsupported version 0"));
        for (int bit = 0x0040; bit <= 0x4000; bit <<= 1) {
            list.add(new Hostile(String.format("unknown flag bit 0x%04x", bit),
                    concat(header(bit, 2), "{}".getBytes()), false, "unknown flag bits"));
        }
        list.add(new Hostile("the broker-to-client mux flag 0x8024 from a client",
                concat(header(0x8024, 2), "{}".getBytes()), false, "not valid from a client"));
        list.add(new Hostile("unknown flag bits with known ones (0x0041)", concat(header(0x0041, 2), "{}".getBytes()),
                false, "unknown flag bits"));
        // Over max_frame_bytes: too_large, naming the setting and its value.
        list.add(new Hostile("declared length 2^32-1, header only", header(0, 0xFFFF_FFFFL), false,
                "a frame of 4294967295 bytes is larger than max_frame_bytes (" + MAX_FRAME_BYTES + " bytes)", "too_large"));
        list.add(new Hostile("declared length cap+1, header only", header(0, MAX_FRAME_BYTES + 1L), false,
                "a frame of " + (MAX_FRAME_BYTES + 1) + " bytes is larger than max_frame_bytes (" + MAX_FRAME_BYTES
                        + " bytes)", "too_large"));
        list.add(new Hostile("binary batch declaring 2^32-1 bytes, header only",
                header(FrameFlags.BINARY_PUBLISH_BATCH, 0xFFFF_FFFFL), false, "larger than max_frame_bytes", "too_large"));
        // ---- the stream ends inside a frame
        list.add(new Hostile("truncated payload then FIN", concat(header(0, 100), "{\"type\":\"pub".getBytes()), true,
                "stream ended inside a frame"));
        list.add(new Hostile("partial header then FIN", new byte[] {0x46, 0x4C, 0x58, 0x31, 0, 1}, true,
                "stream ended inside a frame"));
        // ---- flags that are known but not valid from a client
        list.add(new Hostile("event batch flags 0x0002 from a client", frame(FrameFlags.BINARY_EVENT_BATCH,
                new byte[12]), false, "not valid from a client"));
        list.add(new Hostile("publish ack flags 0x0010 from a client", frame(FrameFlags.BINARY_PUBLISH_ACK,
                new byte[11]), false, "not valid from a client"));
        list.add(new Hostile("acked modifier alone 0x0008", frame(FrameFlags.BINARY_PUBLISH_ACKED, new byte[9]), false,
                "not valid from a client"));
        // ---- JSON payloads
        list.add(new Hostile("bad JSON", json("{\"type\":\"publish\",\"tenant_id\":"), false,
                "malformed JSON: Unexpected end-of-input"));
        list.add(new Hostile("JSON that is not an object", json("[1,2,3]"), false, "must be a JSON object"));
        list.add(new Hostile("empty JSON payload", json(""), false, "malformed JSON: empty payload"));
        list.add(new Hostile("JSON without type", json("{\"message\":\"hi\"}"), false,
                "type: required field is missing"));
        list.add(new Hostile("JSON with an unknown type", json("{\"type\":\"teleport\",\"to\":\"mars\"}"), false,
                "unknown message type \"teleport\""));
        list.add(new Hostile("JSON with a duplicate key", json("{\"type\":\"publish\",\"type\":\"publish\"}"), false,
                "duplicate key"));
        list.add(new Hostile("JSON with a NUL byte", frame(0, new byte[] {'{', 0, '}'}), false, "NUL byte"));
        list.add(new Hostile("bad base64 in a publish", json("{\"type\":\"publish\",\"tenant_id\":\"t1\","
                + "\"namespace\":\"default\",\"stream\":\"demo\",\"payload\":\"@@not*base64\",\"request_id\":1,"
                + "\"ack\":\"per_message\"}"), false, "publish.payload: bad base64"));
        list.add(new Hostile("non-canonical base64 in a publish", json("{\"type\":\"publish\",\"tenant_id\":\"t1\","
                + "\"namespace\":\"default\",\"stream\":\"demo\",\"payload\":\"aGVsbG9=\",\"ack\":\"none\"}"), false,
                "non-zero trailing bits"));
        list.add(new Hostile("request_id out of the u64 range", json("{\"type\":\"publish\",\"tenant_id\":\"t1\","
                + "\"namespace\":\"default\",\"stream\":\"demo\",\"payload\":\"aGVsbG8=\","
                + "\"request_id\":18446744073709551616}"), false, "publish.request_id: out of range"));
        // ---- binary publish batches
        list.add(new Hostile("binary batch with a count larger than its bytes", frame(FrameFlags.BINARY_PUBLISH_BATCH,
                concat(batchHead("t1", "default", "demo", 1_000_000_000L), blob(HELLO))), false,
                "count 1000000000 cannot fit"));
        list.add(new Hostile("binary batch with a count of 2^32-1", frame(FrameFlags.BINARY_PUBLISH_BATCH,
                batchHead("t1", "default", "demo", 0xFFFF_FFFFL)), false, "count 4294967295 cannot fit"));
        list.add(new Hostile("binary batch whose payload overruns it", frame(FrameFlags.BINARY_PUBLISH_BATCH,
                concat(batchHead("t1", "default", "demo", 1), new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF},
                        HELLO)), false, "declares 2147483647 bytes"));
        list.add(new Hostile("binary batch whose name overruns it", frame(FrameFlags.BINARY_PUBLISH_BATCH,
                new byte[] {(byte) 0xFF, (byte) 0xFF, 't', '1'}), false, "tenant_id: need 65535 bytes"));
        list.add(new Hostile("binary batch with trailing bytes", frame(FrameFlags.BINARY_PUBLISH_BATCH,
                concat(batchHead("t1", "default", "demo", 1), blob(HELLO), new byte[] {1, 2, 3})), false,
                "unexpected bytes after the body"));
        list.add(new Hostile("acked binary batch with a bad ack mode", frame(FrameFlags.BINARY_PUBLISH_BATCH
                | FrameFlags.BINARY_PUBLISH_ACKED, concat(ackedPrefix(5, 7), batchHead("t1", "default", "demo", 1),
                blob(HELLO))), false, "ack_mode 7"));
        list.add(new Hostile("acked binary batch shorter than its prefix", frame(FrameFlags.BINARY_PUBLISH_BATCH
                | FrameFlags.BINARY_PUBLISH_ACKED, new byte[] {0, 0, 0, 1}), false, "need 9 bytes"));
        // ---- messages that are well formed but out of place
        list.add(new Hostile("a second auth", WireCodec.encodeFrame(RawConnection.auth(Capabilities.ALL)), false,
                "auth already established"));
        list.add(new Hostile("event (broker-to-client only)", WireCodec.encodeFrame(
                new Message.Event("t1", "default", "demo", HELLO, 3L)), false, "unexpected message type"));
        list.add(new Hostile("auth_ok (broker-to-client only)", WireCodec.encodeFrame(new Message.AuthOk(63)), false,
                "unexpected message type"));
        list.add(new Hostile("publish_ok (broker-to-client only)", WireCodec.encodeFrame(
                new Message.PublishOk(1, null, null, null)), false, "unexpected message type"));
        list.add(new Hostile("event_stream_hello (broker-to-client only)", WireCodec.encodeFrame(
                new Message.EventStreamHello(9, null)), false, "unexpected message type"));
        return list;
    }

    static Stream<Arguments> afterAuthCases() {
        List<Arguments> args = new ArrayList<>();
        for (Dialect d : Dialect.values()) {
            for (Hostile h : afterAuth()) {
                args.add(Arguments.of(d, h));
            }
        }
        return args.stream();
    }

    @Order(1)
    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("afterAuthCases")
    void afterAuth_typedErrorThenOnlyThisStreamEnds(Dialect dialect, Hostile hostile) throws Exception {
        RawStream s = connection.authenticated(dialect.clientFlags);
        s.send(hostile.bytes());
        if (hostile.finish()) {
            s.finish();
        }
        RawStream.Received error = s.frame(1);
        assertTypedError(error, dialect.codes(), hostile.code(), hostile.messageFragment());
        assertThat(s.awaitEnd()).as("the broker ends the offending stream").isEqualTo(RawStream.End.FIN);
        String ignored = "ignored-" + requestIds.incrementAndGet();
        if (!hostile.finish()) { // a valid request after the failure is not acted on
            s.send(new Message.Publish("t1", "default", ignored, HELLO, null, AckMode.NONE, null, null));
        }
        assertOthersUnaffected(); // round trips on the same connection, after the bytes above
        assertThat(s.frames()).as("nothing after the error").hasSize(2);
        assertThat(broker.server().broker().find(new dev.felix.core.StreamName("t1", "default", ignored))).isEmpty();
        s.close();
    }

    /** Frames sent before {@code auth}: refused with "auth required"; no capability was negotiated, so never a code. */
    static Stream<Hostile> beforeAuthCases() {
        return Stream.of(
                new Hostile("publish before auth", WireCodec.encodeFrame(new Message.Publish("t1", "default", "demo",
                        HELLO, 1L, AckMode.PER_MESSAGE, null, null)), false, "auth required"),
                new Hostile("subscribe before auth", WireCodec.encodeFrame(new Message.Subscribe("t1", "default",
                        "demo", null, null, null, null, null, null)), false, "auth required"),
                new Hostile("stream_list before auth", WireCodec.encodeFrame(new Message.StreamList("t1", null, 1L)),
                        false, "auth required"),
                new Hostile("binary publish before auth", WireCodec.encodeFrame(new BinaryPublishBatch("t1", "default",
                        "demo", List.of(HELLO))), false, "auth required"),
                new Hostile("acked binary publish before auth", WireCodec.encodeFrame(new BinaryAckedPublishBatch(7,
                        AckMode.PER_BATCH, new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO)))), false,
                        "auth required"),
                new Hostile("garbage before auth", "\u0000\u0001\u0002 definitely not a frame".getBytes(
                        StandardCharsets.UTF_8), false, "bad frame"),
                new Hostile("unknown flag before auth", concat(header(0x0100, 2), "{}".getBytes()), false, "bad frame"),
                new Hostile("bad JSON before auth", json("{{{"), false, "malformed frame"),
                new Hostile("truncated frame then FIN before auth", concat(header(0, 50), new byte[10]), true,
                        "stream ended inside a frame"));
    }

    @Order(2)
    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("beforeAuthCases")
    void beforeAuth_typedErrorWithoutCodeThenOnlyThisStreamEnds(Hostile hostile) {
        RawStream s = connection.open();
        s.send(hostile.bytes());
        if (hostile.finish()) {
            s.finish();
        }
        assertTypedError(s.frame(0), false, null, hostile.messageFragment());
        assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
        assertThat(s.frames()).hasSize(1);
        s.close();
        assertOthersUnaffected();
    }

    @Order(3)
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void authWithAnInvalidTenantName_isRefusedWithTheNegotiatedErrorShape(Dialect dialect) {
        RawStream s = connection.open();
        s.send(new Message.Auth("bad tenant/", "token", dialect.clientFlags));
        assertTypedError(s.frame(0), dialect.codes(), "bad_request", "tenant");
        assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
        s.close();
        assertOthersUnaffected();
    }

    @Order(4)
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void subscribeToAnInvalidName_typedErrorAndNoSubscriptionIsLeft(Dialect dialect) {
        double subscriptionsBefore = BrokerGauges.subscriptions(broker);
        int eventStreamsBefore = connection.incoming().size();
        RawStream s = connection.authenticated(dialect.clientFlags);
        s.send(new Message.Subscribe("t1", "default", "no spaces allowed!", null, null, null, null, null, null));
        assertTypedError(s.frame(1), dialect.codes(), "bad_request", "stream name");
        assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
        assertThat(BrokerGauges.subscriptions(broker)).isEqualTo(subscriptionsBefore);
        s.finish(); // as an upstream client does after subscribe
        s.close();
        // Another subscribe on the same connection still works, so the refused one left nothing in the way.
        // (It asks for SUBSCRIPTION_LIFELINE so that ending its stream unsubscribes it at once.)
        RawStream ok = connection.authenticated(Capabilities.ALL);
        ok.send(new Message.Subscribe("t1", "default", "valid-after-invalid", null, null, null, null, null, null));
        assertThat(ok.frame(1).message()).isInstanceOf(Message.Subscribed.class);
        org.awaitility.Awaitility.await().atMost(RawStream.WAIT)
                .until(() -> connection.incoming().size() >= eventStreamsBefore + 1);
        assertThat(connection.incoming()).as("exactly one event stream, for the valid subscribe")
                .hasSize(eventStreamsBefore + 1);
        assertThat(connection.incoming().get(eventStreamsBefore).frame(0).message())
                .isInstanceOf(Message.EventStreamHello.class);
        assertThat(BrokerGauges.subscriptions(broker)).isEqualTo(subscriptionsBefore + 1);
        ok.finish(); // ends the lifeline: unsubscribed
        BrokerGauges.awaitSubscriptions(broker, subscriptionsBefore);
        assertThat(connection.incoming().get(eventStreamsBefore).awaitEnd()).isEqualTo(RawStream.End.FIN);
        ok.close();
        assertOthersUnaffected();
    }

    @Order(5)
    @Test
    void aClientReportingAnErrorEndsOnlyItsStream() {
        RawStream s = connection.authenticated(Capabilities.ALL);
        s.send(new Message.ErrorMessage("the client gives up", "bad_request", null));
        assertThat(s.awaitEnd()).isEqualTo(RawStream.End.FIN);
        assertThat(s.frames()).as("only auth_ok: the broker does not answer an error with an error").hasSize(1);
        s.close();
        assertOthersUnaffected();
    }

    @Order(6)
    @Test
    void garbageOnAUnidirectionalStream_isDiscardedAndAffectsNothingElse() throws Exception {
        RawStream s = connection.openUni();
        s.send(WireCodec.encodeFrame(RawConnection.auth(Capabilities.ALL)));
        s.send("garbage garbage garbage".getBytes(StandardCharsets.US_ASCII));
        // A valid publish after the garbage on the same stream must not be acted on: that stream has failed.
        s.send(WireCodec.encodeFrame(new Message.Publish("t1", "default", "never-created", HELLO, null, AckMode.NONE,
                null, null)));
        s.finish();
        assertOthersUnaffected(); // round trips on the same connection, sent after the uni stream's bytes
        assertThat(s.receivedBytes()).as("no reply is possible on a unidirectional stream").isEmpty();
        assertThat(broker.server().broker().find(new dev.felix.core.StreamName("t1", "default", "never-created")))
                .as("the publish after the garbage was not processed").isEmpty();
    }

    // ================================================================== in-band refusals: the stream stays open

    @Order(7)
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void ackedJsonPublishWithoutRequestId_isRefusedAndTheStreamStaysOpen(Dialect dialect) {
        RawStream s = connection.authenticated(dialect.clientFlags);
        // No "ack" key means acknowledged (upstream rule), which needs a request_id.
        s.send(json("{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payload\":\"aGVsbG8=\"}"));
        assertTypedError(s.frame(1), dialect.codes(), "bad_request", "missing request_id for acked publish");
        s.send(json("{\"type\":\"publish_batch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payloads\":[\"aGVsbG8=\"],\"ack\":\"per_batch\"}"));
        assertTypedError(s.frame(2), dialect.codes(), "bad_request", "missing request_id for acked publish batch");
        // Same stream, a correct acked publish: answered, and the stream is still open.
        long id = requestIds.incrementAndGet();
        s.send(new Message.Publish("t1", "default", "demo", HELLO, id, AckMode.PER_MESSAGE, null, null));
        Message reply = s.frame(3).message();
        assertThat(reply).isInstanceOfSatisfying(Message.PublishOk.class,
                ok -> assertThat(ok.requestId()).isEqualTo(id));
        assertThat(s.endNow()).isEqualTo(RawStream.End.OPEN);
        s.close();
        assertOthersUnaffected();
    }

    @Order(8)
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void ackedBinaryPublishWithAMalformedBody_getsABinaryAckErrorAndTheStreamStaysOpen(Dialect dialect) {
        RawStream s = connection.authenticated(dialect.clientFlags);
        int acked = FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED;
        List<byte[]> malformedBodies = List.of(
                concat(batchHead("t1", "default", "demo", 1_000_000), blob(HELLO)), // count larger than its bytes
                concat(batchHead("t1", "default", "demo", 2), blob(HELLO)),         // second payload missing
                new byte[] {0, 9, 't'},                                               // name overruns
                concat(batchHead("t1", "default", "demo", 1), blob(HELLO), new byte[] {9})); // trailing bytes
        int frameIndex = 1;
        for (byte[] body : malformedBodies) {
            long id = requestIds.incrementAndGet();
            s.send(frame(acked, concat(ackedPrefix(id, 2), body)));
            RawStream.Received r = s.frame(frameIndex++);
            assertThat(r.flags()).isEqualTo(FrameFlags.BINARY_PUBLISH_ACK);
            BinaryPublishAck ack = (BinaryPublishAck) r.payload();
            assertThat(ack.status()).isEqualTo(BinaryPublishAck.Status.ERROR);
            assertThat(ack.requestId()).isEqualTo(id);
            assertThat(ack.message()).startsWith("malformed publish batch");
        }
        long id = requestIds.incrementAndGet();
        s.send(WireCodec.encodeFrame(new BinaryAckedPublishBatch(id, AckMode.PER_BATCH,
                new BinaryPublishBatch("t1", "default", "demo", List.of(HELLO, HELLO)))));
        BinaryPublishAck ok = (BinaryPublishAck) s.frame(frameIndex).payload();
        assertThat(ok.status()).isEqualTo(BinaryPublishAck.Status.OK);
        assertThat(ok.requestId()).isEqualTo(id);
        assertThat(s.endNow()).isEqualTo(RawStream.End.OPEN);
        s.close();
        assertOthersUnaffected();
    }

    // ================================================================== the bystander

    @Order(100)
    @Test
    void bystanderSawEveryOffsetInOrderThroughout() throws Exception {
        assertThat(casesRun).as("hostile cases run before this check").isPositive();
        long total = bystander.stopAndVerify();
        assertThat(total).as("events the bystander published during the abuse").isPositive();
        assertThat(connection.isActive()).as("the abused connection is still up").isTrue();
        assertThat(BrokerGauges.connections(broker)).as("connections: bystander x2 + the raw one")
                .isEqualTo(3.0);
    }

    // ================================================================== helpers

    /**
     * Checks an {@code error} frame: JSON {@code {"type":"error","message":...}} whose message contains
     * {@code fragment}, with {@code "code":code} if {@code withCode} and no {@code code} key at all otherwise.
     */
    static void assertTypedError(RawStream.Received r, boolean withCode, String code, String fragment) {
        assertThat(r.flags()).as("a JSON frame").isZero();
        assertThat(r.json()).as("the error as sent").startsWith("{\"type\":\"error\",\"message\":\"");
        assertThat(r.payload()).isInstanceOf(Message.ErrorMessage.class);
        Message.ErrorMessage e = (Message.ErrorMessage) r.payload();
        assertThat(e.message()).containsIgnoringCase(fragment);
        if (withCode) {
            assertThat(e.code()).as("code in " + r.json()).isEqualTo(code);
            assertThat(r.json()).contains("\"code\":\"" + code + "\"");
        } else {
            assertThat(e.code()).as("code in " + r.json()).isNull();
            assertThat(r.json()).doesNotContain("\"code\"");
            assertThat(e.requestId()).isNull();
        }
    }

    /** An acked publish on the long-lived sibling stream; returns once its {@code publish_ok} arrived. */
    private void publishOnSibling(String stream) {
        int before = sibling.frames().size();
        long id = requestIds.incrementAndGet();
        sibling.send(new Message.Publish("t1", "default", stream, HELLO, id, AckMode.PER_MESSAGE, null, null));
        Message reply = sibling.frame(before).message();
        assertThat(reply).as("the sibling stream's ack").isInstanceOfSatisfying(Message.PublishOk.class,
                ok -> assertThat(ok.requestId()).isEqualTo(id));
    }

    /**
     * The connection is up, its long-lived sibling stream still publishes, a new stream on it works, and
     * the bystander is making progress.
     */
    private void assertOthersUnaffected() {
        casesRun++;
        assertThat(connection.isActive()).as("the connection survives").isTrue();
        publishOnSibling("sibling");
        assertThat(sibling.endNow()).isEqualTo(RawStream.End.OPEN);

        RawStream fresh = connection.authenticated(Capabilities.ALL);
        long id2 = requestIds.incrementAndGet();
        fresh.send(new Message.PublishBatch("t1", "default", "sibling", List.of(HELLO), id2, AckMode.PER_BATCH, null,
                null));
        assertThat(fresh.frame(1).message()).isInstanceOf(Message.PublishOk.class);
        fresh.finish();
        fresh.close();
        bystander.awaitProgress(1);
    }
}
