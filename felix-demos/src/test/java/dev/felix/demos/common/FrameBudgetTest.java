package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.WireCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch the demos form never exceeds the SDK's default 16 MiB frame, whatever --payload the demo accepts. */
class FrameBudgetTest {

    @Test
    void theLargestAcceptedPayloadsBatchFitsAFrame() {
        int payload = 1 << 20; // the demos' --payload maximum
        int n = FrameBudget.messagesPerBatch(payload);
        assertThat(n).isBetween(2, 16);
        List<byte[]> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(new byte[payload]);
        }
        byte[] frame = WireCodec.encodeFrame(new BinaryPublishBatch("t1", "default", "telemetry", batch));
        assertThat(frame.length - FrameHeader.HEADER_LENGTH).isLessThanOrEqualTo(16 << 20);
        assertThat(FrameBudget.messagesPerBatch(64)).as("small messages: no practical limit").isGreaterThan(100_000);
    }
}
