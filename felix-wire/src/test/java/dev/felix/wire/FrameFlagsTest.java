package dev.felix.wire;

import static dev.felix.wire.TestSupport.rejects;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Flag constants and which combinations are valid in which direction. */
class FrameFlagsTest {

    @Test
    void constants() {
        assertThat(FrameFlags.BINARY_PUBLISH_BATCH).isEqualTo(0x0001);
        assertThat(FrameFlags.BINARY_EVENT_BATCH).isEqualTo(0x0002);
        assertThat(FrameFlags.BINARY_EVENT_BATCH_SHARED).isEqualTo(0x0004);
        assertThat(FrameFlags.BINARY_PUBLISH_ACKED).isEqualTo(0x0008);
        assertThat(FrameFlags.BINARY_PUBLISH_ACK).isEqualTo(0x0010);
        assertThat(FrameFlags.EVENT_BATCH_OFFSETS).isEqualTo(0x0020);
        assertThat(FrameFlags.MUX_DELIVERY).isEqualTo(0x8000);
        assertThat(FrameFlags.KNOWN).isEqualTo(0x803F);
        assertThat(FrameFlags.ORIGINAL_V1).isEqualTo(0x0007);
    }

    @Test
    void exactlyTheEightUpstreamCombinationsTheMuxBatchAndTheRoutedPublishAreValid() throws Exception {
        Set<Integer> c2b = Set.of(0x0000, 0x0001, 0x0009, 0x0029);
        Set<Integer> b2c = Set.of(0x0000, 0x0010, 0x0030, 0x0002, 0x0022, 0x0004, 0x0024, 0x8024, 0x0026);
        EnumSet<PayloadKind> seen = EnumSet.noneOf(PayloadKind.class);
        for (int flags = 0; flags <= FrameFlags.KNOWN; flags++) {
            if (!FrameFlags.isKnown(flags)) {
                continue;
            }
            assertThat(FrameFlags.isValid(flags, Direction.CLIENT_TO_BROKER)).as("C2B %s", flags).isEqualTo(c2b.contains(flags));
            assertThat(FrameFlags.isValid(flags, Direction.BROKER_TO_CLIENT)).as("B2C %s", flags).isEqualTo(b2c.contains(flags));
            if (c2b.contains(flags) || b2c.contains(flags)) {
                PayloadKind k = PayloadKind.of(flags);
                assertThat(k.flags()).isEqualTo(flags);
                seen.add(k);
            } else {
                int f = flags;
                rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(f));
            }
        }
        assertThat(seen).isEqualTo(EnumSet.allOf(PayloadKind.class));
    }

    @Test
    void wrongDirectionAndUnknownBits() throws Exception {
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x0001, Direction.BROKER_TO_CLIENT));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x0024, Direction.CLIENT_TO_BROKER));
        assertThat(PayloadKind.of(0x0009, Direction.CLIENT_TO_BROKER)).isEqualTo(PayloadKind.ACKED_PUBLISH_BATCH);
        assertThat(PayloadKind.of(0, Direction.BROKER_TO_CLIENT)).isEqualTo(PayloadKind.JSON);
        for (int bit = 6; bit < 15; bit++) {
            int f = 1 << bit;
            assertThat(FrameFlags.isKnown(f)).isFalse();
            assertThat(FrameFlags.isValid(f, Direction.CLIENT_TO_BROKER)).isFalse();
            rejects(WireError.UNKNOWN_FLAGS, () -> PayloadKind.of(f | 1));
        }
        assertThat(FrameFlags.describe(0x0029)).isEqualTo("0x0029(BINARY_PUBLISH_BATCH|BINARY_PUBLISH_ACKED|EVENT_BATCH_OFFSETS)");
        assertThat(FrameFlags.describe(0)).isEqualTo("0x0000");
        assertThat(FrameFlags.describe(0x8024)).isEqualTo("0x8024(BINARY_EVENT_BATCH_SHARED|EVENT_BATCH_OFFSETS|MUX_DELIVERY)");
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x8004));
        rejects(WireError.BAD_FLAG_COMBINATION, () -> PayloadKind.of(0x8024, Direction.CLIENT_TO_BROKER));
    }
}
