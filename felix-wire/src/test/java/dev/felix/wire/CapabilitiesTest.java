package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.wire.Message.ErrorMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Capability bits, negotiation, and which messages need which extension. */
class CapabilitiesTest {

    @Test
    void bitLayout() {
        int[] ext = {Capabilities.ERROR_CODES, Capabilities.GAP_NOTICES, Capabilities.SHARDS, Capabilities.ADMIN,
            Capabilities.CACHE_EXT, Capabilities.CLUSTER, Capabilities.SUBSCRIPTION_LIFELINE};
        assertThat(ext).containsExactly(0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000, 0x4000);
        int all = 0;
        for (int e : ext) {
            assertThat(Integer.bitCount(e)).isEqualTo(1);
            assertThat(e & FrameFlags.KNOWN).isZero();            // never a frame flag
            assertThat(e & Capabilities.RESERVED_UPSTREAM).isZero(); // 0x0040/0x0080 left for upstream
            assertThat(all & e).isZero();
            all |= e;
        }
        assertThat(all).isEqualTo(Capabilities.EXTENSION_MASK);
        assertThat(Capabilities.FRAME_FLAG_MASK).isEqualTo(FrameFlags.KNOWN).isEqualTo(0x803F);
        assertThat(Capabilities.SUBSCRIPTION_MUX).as("the mux frame flag is its own support bit")
            .isEqualTo(FrameFlags.MUX_DELIVERY).isEqualTo(0x8000);
        assertThat(Capabilities.ALL).isEqualTo(0xFF3F);
    }

    @Test
    void hasRequiresEveryBit() {
        assertThat(Capabilities.has(0x0319, Capabilities.ERROR_CODES)).isTrue();
        assertThat(Capabilities.has(0x0319, Capabilities.ERROR_CODES | Capabilities.GAP_NOTICES)).isTrue();
        assertThat(Capabilities.has(0x0319, Capabilities.ERROR_CODES | Capabilities.SHARDS)).isFalse();
        assertThat(Capabilities.has(0, 0)).isTrue();
    }

    @Test
    void negotiationIsTheIntersectionAndIgnoresBitsWeDoNotKnow() {
        assertThat(Capabilities.negotiate(0xBF3F, 0x003F)).isEqualTo(0x003F);          // upstream broker
        assertThat(Capabilities.negotiate(FrameFlags.ORIGINAL_V1, Capabilities.ALL)).isEqualTo(0x0007); // legacy client
        assertThat(Capabilities.negotiate(0xFFFF, 0xFFFF)).isEqualTo(Capabilities.ALL);
        assertThat(Capabilities.negotiate(0x0519, 0x3F3F)).isEqualTo(0x0519);
        assertThat(Capabilities.frameFlags(0x0519)).isEqualTo(0x0019);
        assertThat(Capabilities.extensions(0x0519)).isEqualTo(0x0500);
    }

    @Test
    void upstreamMessagesNeedNothing() {
        assertThat(Capabilities.required(new Message.Ok())).isZero();
        assertThat(Capabilities.required(new ErrorMessage("x"))).isZero();
        assertThat(Capabilities.required(new Message.Publish("t", "n", "s", new byte[0]))).isZero();
        assertThat(Capabilities.required(new Message.Subscribed(1))).isZero();
        assertThat(Capabilities.required(new Message.PublishOk(1))).isZero();
        assertThat(Capabilities.permits(FrameFlags.ORIGINAL_V1, new Message.EventStreamHello(3))).isTrue();
    }

    @Test
    void extensionTypesAndFieldsNeedTheirBit() {
        assertThat(Capabilities.required(new ErrorMessage("x", ErrorCode.NOT_FOUND.code(), null))).isEqualTo(Capabilities.ERROR_CODES);
        assertThat(Capabilities.required(new ErrorMessage("x", null, 5L))).isEqualTo(Capabilities.ERROR_CODES);
        assertThat(Capabilities.required(new Message.PublishError(1, "x", "overloaded"))).isEqualTo(Capabilities.ERROR_CODES);
        assertThat(Capabilities.required(new Message.Gap(1, null, 1, 2, "x"))).isEqualTo(Capabilities.GAP_NOTICES);
        assertThat(Capabilities.required(new Message.Gap(1, 0, 1, 2, "x")))
            .isEqualTo(Capabilities.GAP_NOTICES | Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.Publish("t", "n", "s", new byte[0], null, null, "k", null)))
            .isEqualTo(Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.PublishBatch("t", "n", "s", List.of(), null, null, null, 2)))
            .isEqualTo(Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.Subscribe("t", "n", "s", null, null, 1, QueuePolicy.BLOCK, null, null)))
            .isEqualTo(Capabilities.SHARDS | Capabilities.GAP_NOTICES);
        assertThat(Capabilities.required(new Message.Subscribed(1, List.of(0)))).isEqualTo(Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.EventStreamHello(1, 0))).isEqualTo(Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.PublishOk(1, 5L, 1, null))).isEqualTo(FrameFlags.EVENT_BATCH_OFFSETS);
        assertThat(Capabilities.required(new Message.PublishOk(1, null, null, 3))).isEqualTo(Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.StreamList("t", null, null))).isEqualTo(Capabilities.ADMIN);
        assertThat(Capabilities.required(new Message.StreamListResult(List.of(), null))).isEqualTo(Capabilities.ADMIN);
        assertThat(Capabilities.required(new Message.Unsubscribe(3))).isEqualTo(Capabilities.SUBSCRIPTION_MUX);
        assertThat(Capabilities.required(new ErrorMessage("x", null, null, 7L))).isEqualTo(Capabilities.ERROR_CODES);
        assertThat(Capabilities.required(new ErrorMessage("x", "not_leader", null, null, new LeaderInfo("n2", "h:1", 3))))
            .isEqualTo(Capabilities.ERROR_CODES | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.PublishError(1, "x", "not_leader", new LeaderInfo("n2", "h:1", 3))))
            .isEqualTo(Capabilities.ERROR_CODES | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.StreamCreate("t", "n", "s", null, true, null, null, null, null,
            "quorum", null))).isEqualTo(Capabilities.ADMIN | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.StreamInfo(new StreamDescription("t", "n", "s", 1, true, null,
            null, null, List.of(new ShardInfo(0, 0, 1, "n1", 2L, List.of("n1"), "online"))), null)))
            .isEqualTo(Capabilities.ADMIN | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.ClusterStatus(null))).isEqualTo(Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.CacheCreate("t", "n", "c", "log", null, null, null, null)))
            .isEqualTo(Capabilities.CACHE_EXT);
        assertThat(Capabilities.required(new Message.CacheCreate("t", "n", "c", "log", null, null, null, null,
            "quorum"))).isEqualTo(Capabilities.CACHE_EXT | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.CacheInfo("t", "n", "c", "log", null, 1, null, null, null, null,
            "leader"))).isEqualTo(Capabilities.CACHE_EXT | Capabilities.CLUSTER);
        assertThat(Capabilities.required(new Message.CacheListResult(List.of(
            new CacheDescription("t", "n", "a", "memory", null, 1, null),
            new CacheDescription("t", "n", "b", "log", null, 1, null, "quorum")), null)))
            .isEqualTo(Capabilities.CACHE_EXT | Capabilities.CLUSTER);
        for (MessageType t : MessageType.values()) {
            assertThat(t.requiredCapability()).isIn(0, Capabilities.GAP_NOTICES, Capabilities.ADMIN,
                Capabilities.CACHE_EXT, Capabilities.SUBSCRIPTION_MUX, Capabilities.CLUSTER);
        }
    }

    @Test
    void incarnationNeedsGapNotices() {
        assertThat(Capabilities.required(new Message.Subscribe("t", "n", "s", null, StartPosition.offset(4), null, null,
            null, null, 2L))).isEqualTo(Capabilities.GAP_NOTICES);
        assertThat(Capabilities.required(new Message.EventStreamHello(1, null, 2L))).isEqualTo(Capabilities.GAP_NOTICES);
        assertThat(Capabilities.required(new Message.EventStreamHello(1, 0, 2L)))
            .isEqualTo(Capabilities.GAP_NOTICES | Capabilities.SHARDS);
        assertThat(Capabilities.required(new Message.EventStreamHello(1, null, null))).isZero();
    }

    @Test
    void cacheExtensionsNeedCacheExt() {
        assertThat(Capabilities.required(new Message.CacheOk(1))).isZero();
        assertThat(Capabilities.required(new Message.CacheOk(1, 0L))).isEqualTo(Capabilities.CACHE_EXT);
        List<Message> ext = List.of(
            new Message.CacheDelete("t", "n", "c", "k", null),
            new Message.CacheCreate("t", "n", "c", null, null, null, null, null),
            new Message.CacheDescribe("t", "n", "c", null),
            new Message.CacheInfo("t", "n", "c", "memory", null, 1, null, null, null, null),
            new Message.CacheWatch("t", "n", "c", null, null, null, null),
            new Message.WatchSnapshot(0, List.of(), true),
            new Message.WatchChange(0, "k", "delete", null, null),
            new Message.WatchEnded(0, "shutdown", null));
        assertThat(ext).extracting(Message::type).doesNotHaveDuplicates().hasSize(8);
        for (Message m : ext) {
            assertThat(m.type().isExtension()).isTrue();
            assertThat(Capabilities.required(m)).as(m.type().wireName()).isEqualTo(Capabilities.CACHE_EXT);
            assertThat(Capabilities.permits(Capabilities.ALL & ~Capabilities.CACHE_EXT, m)).isFalse();
            assertThat(Capabilities.permits(Capabilities.CACHE_EXT, m)).isTrue();
        }
    }

    @Test
    void aPeerThatDidNotAskNeverQualifies() {
        Message gap = new Message.Gap(1, null, 1, 2, "queue_overflow");
        assertThat(Capabilities.permits(Capabilities.negotiate(0x003F, Capabilities.ALL), gap)).isFalse();
        assertThat(Capabilities.permits(Capabilities.negotiate(0x023F, Capabilities.ALL), gap)).isTrue();
        Message coded = new ErrorMessage("no", ErrorCode.FORBIDDEN.code(), null);
        assertThat(Capabilities.permits(FrameFlags.ORIGINAL_V1, coded)).isFalse();
        assertThat(Capabilities.permits(Capabilities.ERROR_CODES, coded)).isTrue();
    }

    @Test
    void theSecondWordNegotiatesLikeTheFirst() {
        assertThat(Capabilities.ROUTED_BINARY_PUBLISH).isEqualTo(0x1_0000);
        assertThat(Capabilities.BINARY_WATCH).isEqualTo(0x2_0000);
        assertThat(Capabilities.combine(0xFF3F, 0x0003)).isEqualTo(Capabilities.ALL_WORDS).isEqualTo(0x3_FF3F);
        // a peer that knows only the routed publish gets no binary watch frames
        assertThat(Capabilities.has(Capabilities.negotiate(Capabilities.combine(Capabilities.ALL, 0x0001),
            Capabilities.ALL_WORDS), Capabilities.BINARY_WATCH)).isFalse();
        assertThat(Capabilities.firstWord(Capabilities.ALL_WORDS)).isEqualTo(Capabilities.ALL);
        assertThat(Capabilities.secondWord(Capabilities.ALL_WORDS)).isEqualTo(Capabilities.EXT_ALL);
        // a peer that sent no second word has none of its extensions, whatever the other side has
        assertThat(Capabilities.negotiate(Capabilities.ALL, Capabilities.ALL_WORDS)).isEqualTo(Capabilities.ALL);
        assertThat(Capabilities.negotiate(Capabilities.ALL_WORDS, Capabilities.ALL)).isEqualTo(Capabilities.ALL);
        assertThat(Capabilities.negotiate(Capabilities.ALL_WORDS, Capabilities.ALL_WORDS)).isEqualTo(Capabilities.ALL_WORDS);
        // unknown bits of a newer peer's second word do no harm
        assertThat(Capabilities.negotiate(Capabilities.combine(0xFFFF, 0xFFFF), Capabilities.ALL_WORDS))
            .isEqualTo(Capabilities.ALL_WORDS);
        assertThat(new Message.Auth("t1", "x", 0x0107, 0x0001).capabilities()).isEqualTo(0x1_0107);
        assertThat(new Message.Auth("t1", "x", null).capabilities()).isEqualTo(FrameFlags.ORIGINAL_V1);
        assertThat(new Message.AuthOk(0x0107).capabilities()).isEqualTo(0x0107);
        assertThat(Capabilities.describe(Capabilities.combine(0x0100, 1))).isEqualTo("0x00010100[ERROR_CODES|ROUTED_BINARY_PUBLISH]");
        assertThat(Capabilities.describe(Capabilities.combine(0, 3))).isEqualTo("0x00030000[ROUTED_BINARY_PUBLISH|BINARY_WATCH]");
    }

    @Test
    void describeAndU16Check() {
        assertThat(Capabilities.describe(0x0119)).isEqualTo(
            "0x0119[BINARY_PUBLISH_BATCH|BINARY_PUBLISH_ACKED|BINARY_PUBLISH_ACK|ERROR_CODES]");
        assertThat(Capabilities.describe(0x4040)).isEqualTo("0x4040[0x0040|0x4000]");
        assertThat(Capabilities.checkU16(65535)).isEqualTo(65535);
        assertThatThrownBy(() -> Capabilities.checkU16(65536)).isInstanceOf(IllegalArgumentException.class);
    }
}
