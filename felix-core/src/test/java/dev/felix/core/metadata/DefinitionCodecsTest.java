package dev.felix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.Consistency;
import dev.felix.core.StreamConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A stream's stored definition reads back as written, the optional fields included. */
class DefinitionCodecsTest {

    @Test
    void streamDefinitions_roundTrip_withAndWithoutTheirOptionalFields() {
        StreamConfig durable = StreamConfig.builder().shards(3).durable(true).fsync(StreamConfig.Fsync.ON_COMMIT)
                .retentionBytes(1 << 20).retentionAge(Duration.ofHours(2)).consistency(Consistency.QUORUM).replicas(3)
                .build();
        StreamConfig presence = StreamConfig.builder().shards(2).noReplay(true).build();
        for (StreamConfig c : new StreamConfig[] {durable, presence, StreamConfig.ephemeral()}) {
            assertThat(DefinitionCodecs.decodeStream(DefinitionCodecs.encode(c, 7))).isEqualTo(c);
        }
        assertThat(DefinitionCodecs.encode(StreamConfig.ephemeral(), 7).getProperty("no_replay"))
                .as("absent unless set, so older readers see what they know").isNull();
    }
}
