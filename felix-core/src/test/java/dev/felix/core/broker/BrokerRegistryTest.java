package dev.felix.core.broker;

import dev.felix.core.CoreConfig;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.stream.Shard;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.StreamInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The registry: auto-create, typed {@code not_found} naming the missing part, idempotent creation,
 * sorted and filtered listing, and how a publish picks its shard.
 */
class BrokerRegistryTest {

    private final List<Broker> brokers = new ArrayList<>();

    /** A broker; without auto-create, tenants t, a, b, ab and acme are registered (as a server does from its auth config). */
    private Broker broker(boolean autoCreate) {
        Broker b = new Broker(CoreConfig.defaults().withShardThreads(1).withAutoCreate(autoCreate));
        brokers.add(b);
        if (!autoCreate) {
            for (String t : List.of("t", "a", "b", "ab", "acme")) {
                b.metadata().createTenant(t).join();
            }
        }
        return b;
    }

    @AfterEach
    void close() {
        brokers.forEach(Broker::close);
    }

    private static StreamName name(String text) {
        return StreamName.parse(text);
    }

    private static FelixException notFound(Broker broker, String text) {
        try {
            broker.stream(name(text));
        } catch (FelixException e) {
            return e;
        }
        throw new AssertionError("expected not_found for " + text);
    }

    @Test
    void stream_autoCreateOn_createsAnEphemeralSingleShardStreamOnce() throws Exception {
        Broker broker = broker(true);
        assertThat(broker.find(name("a/b/c"))).as("find never creates").isEmpty();

        Stream s = broker.stream(name("a/b/c"));

        assertThat(s.config()).isEqualTo(StreamConfig.ephemeral());
        assertThat(s.shardCount()).isEqualTo(1);
        assertThat(broker.stream(name("a/b/c"))).isSameAs(s);
        assertThat(broker.find(name("a/b/c"))).containsSame(s);
        assertThat(broker.createStream(name("a/b/c"), StreamConfig.ephemeral())).isSameAs(s);
    }

    @Test
    void stream_autoCreateOn_concurrentFirstUse_yieldsOneStream() throws Exception {
        Broker broker = broker(true);
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Stream>> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(CompletableFuture.supplyAsync(() -> {
                try {
                    start.await(5, TimeUnit.SECONDS);
                    return broker.stream(name("race/ns/s"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        start.countDown();
        Stream first = all.get(0).get(20, TimeUnit.SECONDS);
        for (CompletableFuture<Stream> f : all) {
            assertThat(f.get(20, TimeUnit.SECONDS)).isSameAs(first);
        }
        assertThat(broker.streams()).hasSize(1);
    }

    @Test
    void stream_autoCreateOff_notFound_namesTheTenantThenNamespaceThenStream() throws Exception {
        Broker broker = broker(false);

        FelixException noTenant = notFound(broker, "acme/orders/created");
        assertThat(noTenant.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(noTenant.getMessage()).contains("namespace 'acme/orders' not found");
        assertThat(notFound(broker, "nobody/orders/created").getMessage()).contains("tenant 'nobody' not found");

        broker.createStream(name("acme/orders/created"), StreamConfig.ephemeral());

        FelixException noNamespace = notFound(broker, "acme/billing/created");
        assertThat(noNamespace.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(noNamespace.getMessage()).contains("namespace 'acme/billing' not found");

        FelixException noStream = notFound(broker, "acme/orders/deleted");
        assertThat(noStream.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(noStream.getMessage()).contains("stream 'acme/orders/deleted' not found");

        assertThat(notFound(broker, "other/orders/created").getMessage()).contains("tenant 'other' not found");
        assertThat(broker.streams()).hasSize(1);
        assertThat(broker.stream(name("acme/orders/created")).name()).isEqualTo(name("acme/orders/created"));
    }

    @Test
    void createStream_sameDefinition_isIdempotent_differentOne_isAlreadyExists() throws Exception {
        Broker broker = broker(false);
        Stream s = broker.createStream(name("t/ns/s"), StreamConfig.ephemeral(4));

        assertThat(broker.createStream(name("t/ns/s"), StreamConfig.ephemeral(4))).isSameAs(s);

        assertThatThrownBy(() -> broker.createStream(name("t/ns/s"), StreamConfig.ephemeral(2)))
                .isInstanceOfSatisfying(FelixException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS);
                    assertThat(e.getMessage()).contains("t/ns/s").contains("shards=4");
                });
        assertThat(broker.stream(name("t/ns/s"))).isSameAs(s);
        assertThat(s.shardCount()).isEqualTo(4);
    }

    @Test
    void createStream_durable_isABadRequestForNow() throws Exception {
        Broker broker = broker(false);
        StreamConfig durable = new StreamConfig(1, true, StreamConfig.Fsync.ON_COMMIT, 0, Duration.ofHours(1));

        assertThatThrownBy(() -> broker.createStream(name("t/ns/d"), durable))
                .isInstanceOfSatisfying(FelixException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        assertThat(broker.find(name("t/ns/d"))).isEmpty();
    }

    @Test
    void list_isSortedByName_andFilteredByTenantAndNamespace() throws Exception {
        Broker broker = broker(false);
        for (String n : List.of("b/ns2/z", "a/ns2/a", "a/ns1/b", "a/ns1/a", "ab/ns1/a", "a/ns10/a")) {
            broker.createStream(name(n), StreamConfig.ephemeral());
        }

        assertThat(names(broker.list("a", null))).containsExactly("a/ns1/a", "a/ns1/b", "a/ns10/a", "a/ns2/a");
        assertThat(names(broker.list("a", "ns1"))).containsExactly("a/ns1/a", "a/ns1/b");
        assertThat(names(broker.list("b", null))).containsExactly("b/ns2/z");
        assertThat(broker.list("nobody", null)).isEmpty();
        assertThat(broker.list("a", "ns3")).isEmpty();
    }

    @Test
    void list_reportsEachShardsOffsets() throws Exception {
        Broker broker = broker(false);
        Stream s = broker.createStream(name("t/ns/s"), StreamConfig.ephemeral(2));

        StreamInfo info = broker.list("t", "ns").get(0);

        assertThat(info.config()).isEqualTo(StreamConfig.ephemeral(2));
        assertThat(info.shards()).hasSize(2);
        assertThat(info.shards().get(1).shard()).isEqualTo(1);
        assertThat(info.shards().get(0).incarnation()).isPositive().isEqualTo(s.shard(0).incarnation());
    }

    private static List<String> names(List<StreamInfo> infos) {
        return infos.stream().map(i -> i.name().toString()).toList();
    }

    // ------------------------------------------------------------------ shard choice

    /** FNV-1a over UTF-16 units, written independently of the broker to pin the mapping. */
    private static int expectedShard(String key, int shards) {
        long h = 0x811C9DC5L;
        for (char c : key.toCharArray()) {
            h = ((h ^ c) * 0x01000193L) & 0xFFFFFFFFL;
        }
        return Math.floorMod((int) h, shards);
    }

    @Test
    void shardFor_key_isAStableHash_sameAcrossBrokers() throws Exception {
        Stream one = broker(false).createStream(name("t/ns/keys"), StreamConfig.ephemeral(8));
        Stream two = broker(false).createStream(name("t/ns/keys"), StreamConfig.ephemeral(8));
        Map<Integer, Integer> used = new HashMap<>();

        for (int i = 0; i < 200; i++) {
            String key = "user-" + i;
            Shard chosen = one.shardFor(key);
            assertThat(chosen.index()).as(key).isEqualTo(expectedShard(key, 8));
            assertThat(one.shardFor(key)).isSameAs(chosen);
            assertThat(two.shardFor(key).index()).isEqualTo(chosen.index());
            used.merge(chosen.index(), 1, Integer::sum);
        }
        assertThat(used).as("keys spread over every shard").hasSize(8);
        assertThat(one.shardFor("").index()).isEqualTo(expectedShard("", 8));
    }

    @Test
    void shardFor_singleShard_isAlwaysShardZero() throws Exception {
        Stream s = broker(false).createStream(name("t/ns/one"), StreamConfig.ephemeral());

        assertThat(s.shardFor("anything").index()).isZero();
        assertThat(s.shardFor(null).index()).isZero();
    }

    @Test
    void shardFor_noKey_roundRobinsEvenlyOverTheShards() throws Exception {
        Stream s = broker(false).createStream(name("t/ns/rr"), StreamConfig.ephemeral(4));

        int[] counts = new int[4];
        int previous = s.shardFor(null).index();
        counts[previous]++;
        for (int i = 1; i < 400; i++) {
            int index = s.shardFor(null).index();
            assertThat(index).isEqualTo((previous + 1) % 4);
            counts[index]++;
            previous = index;
        }

        assertThat(counts).containsExactly(100, 100, 100, 100);
    }
}
