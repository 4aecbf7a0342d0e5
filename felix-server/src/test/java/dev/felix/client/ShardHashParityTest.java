package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.stream.Stream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The cluster SDK sends a keyed publish straight to its shard's leader, so it must pick the shard the
 * broker would: {@link ShardHash} against the broker's {@link Stream#shardIndex}, for random keys (ASCII and
 * beyond, surrogates included) and shard counts.
 */
class ShardHashParityTest {

    @Test
    void theClientPicksTheShardTheBrokerPicks() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            StringBuilder key = new StringBuilder();
            int length = random.nextInt(0, 40);
            for (int c = 0; c < length; c++) {
                key.append((char) (random.nextBoolean() ? random.nextInt(32, 127) : random.nextInt(0, 0x10000)));
            }
            int shards = random.nextInt(1, 65);
            assertThat(ShardHash.of(key.toString(), shards)).as("key %s, %d shards", key, shards)
                    .isEqualTo(Stream.shardIndex(key.toString(), shards));
        }
        assertThat(ShardHash.of("orders-42", 8)).isEqualTo(Stream.shardIndex("orders-42", 8));
    }
}
