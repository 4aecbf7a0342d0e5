package dev.felix.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.felix.client.ClientConfig;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.core.StreamName;
import dev.felix.server.FelixServer;
import dev.felix.transport.ClientTrust;
import dev.felix.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cluster_relay_subscribe} over real QUIC on three in-process nodes: a plain client subscribed on a node that
 * does not lead the shard gets every event, in order, through that node's relay; the leader serves one relay
 * stream per other node however many subscribers each has; a subscribe the relay does not serve (from an offset)
 * is still answered {@code not_leader}.
 */
@Timeout(180)
class RelaySubscribeIntegrationTest extends ClusterTestBase {

    private static final StreamRef TICKS = StreamRef.parse("t1/default/ticks");
    private static final int EVENTS = 300;

    private FelixClient connect(FelixServer node) throws Exception {
        return cluster.connect(node);
    }

    @Test
    void aSubscriberOnANodeThatDoesNotLeadTheShard_getsEveryEventInOrder_throughOneRelayPerNode() throws Exception {
        cluster = TestCluster.startThree(dir, Map.of("cluster_relay_subscribe", "true"));
        FelixClient admin = connect(cluster.node("n1"));
        String leaderId = admin.streams().create(TICKS, new StreamSpec(1, false, null, null, null))
                .shardInfo().get(0).leader();
        List<String> others = cluster.nodes().keySet().stream().filter(id -> !id.equals(leaderId)).toList();
        FelixServer leader = cluster.node(leaderId);
        FelixServer a = cluster.node(others.get(0));
        FelixServer b = cluster.node(others.get(1));

        Publisher publisher = connect(leader).publisher(TICKS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> publisher.publish(bytes("warm-up")).firstOffset() >= 0);

        List<Subscription> relayed = new ArrayList<>();
        for (FelixServer node : List.of(a, a, b)) {
            relayed.add(connect(node).subscribe(SubscribeOptions.of(TICKS)));
        }
        Subscription direct = connect(leader).subscribe(SubscribeOptions.of(TICKS));
        assertThat(subscribers(leader)).as("the leader's client plus one relay stream per other node").isEqualTo(3);

        long first = publisher.publish(bytes("m0")).firstOffset();
        for (int i = 1; i < EVENTS; i++) {
            assertThat(publisher.publish(bytes("m" + i)).firstOffset()).isEqualTo(first + i);
        }
        for (Subscription s : relayed) {
            assertEveryEvent(s, first);
        }
        assertEveryEvent(direct, first);

        assertThat(metric(a, "felix_relay_delivered_total")).isEqualTo(2.0 * EVENTS);
        assertThat(metric(b, "felix_relay_delivered_total")).isEqualTo(EVENTS);
        assertThat(metric(a, "felix_relay_fenced_total")).isZero();
        assertRelayMetricsDocumented(scrape(a));

        // A subscribe from an offset, and from the earliest, replays from the leader, then joins the relay.
        Subscription fromOffset = connect(a).subscribe(SubscribeOptions.of(TICKS).fromOffset(first));
        assertEveryEvent(fromOffset, first);
        Subscription fromEarliest = connect(b).subscribe(SubscribeOptions.of(TICKS).fromEarliest());
        assertThat(((Event) fromEarliest.next(Duration.ofSeconds(20))).offset()).isEqualTo(first - 1); // warm-up
        assertEveryEvent(fromEarliest, first);
        long more = publisher.publish(bytes("after the replay")).firstOffset();
        for (Subscription s : List.of(fromOffset, fromEarliest)) {
            assertThat(((Event) s.next(Duration.ofSeconds(20))).offset()).as("live after the replay").isEqualTo(more);
        }
        assertThat(metric(a, "felix_relay_replays_total{outcome=\"rejoined\"}")).isEqualTo(1);
        assertThat(metric(b, "felix_relay_replays_total{outcome=\"rejoined\"}")).isEqualTo(1);
        fromOffset.close();
        fromEarliest.close();

        // The cluster SDK asked to subscribe through a node that does not lead the shard: served by its relay.
        try (dev.felix.client.FelixCluster felix = dev.felix.client.FelixCluster.connect(
                ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert())).tenant("t1").build(),
                List.of(leader.quicAddress()))) {
            var via = felix.subscribe(TICKS, 0, dev.felix.wire.StartPosition.offset(first), a.quicAddress());
            for (int i = 0; i < EVENTS; i++) {
                assertThat(((Event) via.next(Duration.ofSeconds(20))).offset()).isEqualTo(first + i);
            }
            assertThat(metric(a, "felix_relay_replays_total{outcome=\"rejoined\"}")).as("replayed by a").isEqualTo(2);
            assertThat(felix.redirects()).as("never sent to the leader").isZero();
        }

        // The last local subscriber leaving a node closes that node's relay stream on the leader.
        relayed.get(2).close();
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(leader) == 2);
    }

    @Test
    void aSubscriberThatStopsReading_isToldExactlyWhatTheRelayLost_andItsNeighbourGetsEverything() throws Exception {
        // A long deadline: the slow one loses past its backlog (1,024 batches), and the neighbour, read by a thread
        // of this busy test JVM, has ample time, so only the slow one is fenced.
        SlowSetup setup = slowSetup(TICKS, new StreamSpec(1, false, null, null, null),
                Map.of("cluster_relay_deadline_ms", "10000"));
        FelixServer relay = setup.relay();
        Publisher publisher = setup.publisher();
        FelixClient slowClient = setup.slowClient();
        Subscription slow = slowClient.subscribe(SubscribeOptions.of(TICKS));
        Subscription fast = connect(relay).subscribe(SubscribeOptions.of(TICKS));

        // More than the slow client's SDK buffers plus its broker-side queue: it must stall. Its neighbour reads
        // as the events come, as a healthy subscriber does.
        int total = 3_000;
        List<Item> fastItems = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread fastReader = new Thread(() -> {
            while (fastItems.size() < total) {
                Item item = fast.next(Duration.ofSeconds(30));
                if (item == null) {
                    return;
                }
                fastItems.add(item);
            }
        });
        fastReader.start();
        long first = publisher.publish(bytes("m0")).firstOffset();
        for (int i = 1; i < total; i++) {
            publisher.publish(bytes("m" + i));
        }
        fastReader.join(60_000);
        assertThat(fastItems).hasSize(total).allMatch(Event.class::isInstance);
        for (int i = 0; i < total; i++) {
            assertThat(((Event) fastItems.get(i)).offset()).isEqualTo(first + i);
        }
        // The slow subscriber has not read: what it could not take is lost, past its backlog or at the 2 s deadline.
        await().atMost(Duration.ofSeconds(20)).until(() -> metric(relay, "felix_relay_fenced_total") >= 1);
        long last = publisher.publish(bytes("after")).firstOffset(); // its next event follows the gap notice

        long expected = first;
        boolean relayLag = false;
        while (expected <= last) {
            Item item = slow.next(Duration.ofSeconds(20));
            if (item == null) {
                throw new AssertionError("nothing at offset " + expected + " (last " + last + "); ended "
                        + slow.ended() + "; gaps " + metric(relay, "felix_relay_gaps_total") + ", fenced "
                        + metric(relay, "felix_relay_fenced_total") + ", closes "
                        + metric(relay, "felix_relay_paced_closes_total") + ", stale "
                        + metric(relay, "felix_relay_dropped_total{reason=\"stale\"}") + ", queue_full "
                        + metric(relay, "felix_relay_dropped_total{reason=\"queue_full\"}") + ", delivered "
                        + metric(relay, "felix_relay_delivered_total"));
            }
            if (item instanceof dev.felix.client.Gap gap) {
                assertThat(gap.from()).as("a gap starts where delivery stopped").isEqualTo(expected);
                relayLag |= gap.reason().equals("relay_lag");
                expected = gap.to() + 1;
            } else {
                assertThat(((Event) item).offset()).as("no event skipped without a gap").isEqualTo(expected);
                expected++;
            }
        }
        assertThat(relayLag).as("the relay announced its loss").isTrue();
        assertThat(metric(relay, "felix_relay_gaps_total")).isGreaterThanOrEqualTo(1);
        assertThat(metric(relay, "felix_relay_dropped_total{reason=\"stale\"}")
                + metric(relay, "felix_relay_dropped_total{reason=\"queue_full\"}"))
                .as("lost at its deadline or past its backlog").isPositive();
    }

    @Test
    void aGapCapableSubscriberOfADurableStreamThatStopsReading_isHealedFromALog_andMissesNothing()
            throws Exception {
        SlowSetup setup = slowSetup(TICKS, new StreamSpec(1, true, null, null, null),
                Map.of("cluster_relay_deadline_ms", "500"));
        FelixServer relay = setup.relay();
        Publisher publisher = setup.publisher();
        FelixClient slowClient = setup.slowClient();
        Subscription slow = slowClient.subscribe(SubscribeOptions.of(TICKS));
        int total = 3_000;
        long first = publisher.publish(bytes("m0")).firstOffset();
        for (int i = 1; i < total; i++) {
            publisher.publish(bytes("m" + i));
        }
        // It has not read: the relay lost what it could not hold for it, and replays it from the leader's log.
        await().atMost(Duration.ofSeconds(20)).until(() -> metric(relay, "felix_relay_fenced_total") >= 1);
        long last = publisher.publish(bytes("after")).firstOffset();

        for (long expected = first; expected <= last; expected++) {
            Item item = slow.next(Duration.ofSeconds(20));
            assertThat(item).as("offset " + expected + ", no gap: the heal replays what the relay lost")
                    .isInstanceOf(Event.class);
            assertThat(((Event) item).offset()).isEqualTo(expected);
            String want = expected == last ? "after" : "m" + (expected - first);
            assertThat(new String(((Event) item).payload(), StandardCharsets.UTF_8)).isEqualTo(want);
        }
        assertThat(metric(relay, "felix_relay_replays_total{outcome=\"rejoined\"}")).isGreaterThanOrEqualTo(1);
        assertThat(metric(relay, "felix_relay_replays_total{outcome=\"failed\"}")).isZero();
        assertThat(metric(relay, "felix_relay_replayed_events_total{source=\"replica\"}"))
                .as("read from this node's own replica first (follower reads)").isPositive();
        assertThat(metric(relay, "felix_relay_gaps_total")).as("nothing announced: nothing was lost").isZero();
    }

    @Test
    void aSubscribeToEveryShardOnOneNode_getsTheShardsItLeadsAndTheShardsItRelays_eachInOrder() throws Exception {
        cluster = TestCluster.startThree(dir, Map.of("cluster_relay_subscribe", "true"));
        FelixClient admin = connect(cluster.node("n1"));
        var info = admin.streams().create(TICKS, new StreamSpec(3, true, null, null, null)).shardInfo();
        java.util.Set<String> leaders = new java.util.HashSet<>();
        info.forEach(sh -> leaders.add(sh.leader()));
        assertThat(leaders).as("the shards are led by more than one node").hasSizeGreaterThan(1);
        dev.felix.client.FelixCluster felix = dev.felix.client.FelixCluster.connect(
                ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert())).tenant("t1").build(),
                cluster.nodes().values().stream().map(FelixServer::quicAddress).toList());
        try {
            var publisher = felix.publisher(TICKS);
            Map<Integer, List<Long>> published = new java.util.TreeMap<>();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> publisher.publish("warm-up", bytes("w")).firstOffset() >= 0);
            for (int i = 0; i < 90; i++) {
                var ack = publisher.publish("k" + i, bytes("m" + i));
                published.computeIfAbsent(ack.shard(), k -> new ArrayList<>()).add(ack.firstOffset());
            }
            assertThat(published).as("keys spread over every shard").hasSize(3);
            for (var named : cluster.nodes().entrySet()) {
                FelixServer node = named.getValue();
                Subscription all = connect(node).subscribe(SubscribeOptions.of(TICKS).fromEarliest());
                Map<Integer, List<Long>> seen = new java.util.TreeMap<>();
                int want = 91;
                for (int n = 0; n < want; n++) {
                    Item item = all.next(Duration.ofSeconds(20));
                    assertThat(item).as("event " + n + " on " + named.getKey()).isInstanceOf(Event.class);
                    Event e = (Event) item;
                    seen.computeIfAbsent(e.shard(), k -> new ArrayList<>()).add(e.offset());
                }
                for (var entry : published.entrySet()) {
                    List<Long> got = seen.get(entry.getKey());
                    assertThat(got).as("shard " + entry.getKey() + " on " + named.getKey()).isNotNull();
                    assertThat(got).as("in order, from the earliest").isSorted()
                            .containsAll(entry.getValue());
                }
                all.close();
            }
        } finally {
            felix.close();
        }
    }

    @Test
    void aNoReplayStream_losesWhatASlowSubscriberCouldNotTake_countedButNeverFencedOrClosed() throws Exception {
        StreamRef presence = StreamRef.parse("t1/default/presence");
        SlowSetup setup = slowSetup(presence, StreamSpec.ephemeral(1).withoutReplay(),
                Map.of("cluster_relay_deadline_ms", "500"));
        assertThat(setup.created().noReplay()).isTrue();
        FelixServer relay = setup.relay();
        Publisher publisher = setup.publisher();
        FelixClient slowClient = setup.slowClient();
        Subscription slow = slowClient.subscribe(SubscribeOptions.of(presence));
        long first = publisher.publish(bytes("m0")).firstOffset();
        for (int i = 1; i < 3_000; i++) {
            publisher.publish(bytes("m" + i));
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> metric(relay, "felix_relay_dropped_total{reason=\"ephemeral\"}") > 0);
        long last = publisher.publish(bytes("after")).firstOffset();

        // The subscription goes on: once the reader has caught up, what is published next reaches it. An "after"
        // published while the backlog still filled the subscriber's queues may itself miss its 500 ms deadline
        // (on a busy machine the reader takes longer than that to drain), so another is published whenever the
        // reader finds nothing more, at most ten times.
        long previous = first - 1;
        long received = 0;
        int republished = 0;
        while (previous < last) {
            Item item = slow.next(Duration.ofSeconds(2));
            if (item == null) {
                assertThat(republished++).as("after offset " + previous + ": the subscription goes on").isLessThan(10);
                last = publisher.publish(bytes("after")).firstOffset();
                continue;
            }
            if (item instanceof dev.felix.client.Gap gap) {
                // The broker announces nothing; the SDK itself sees the jump in offsets and says so.
                assertThat(gap.reason()).as("after offset " + previous).isEqualTo("unannounced");
                continue;
            }
            assertThat(item).as("after offset " + previous).isInstanceOf(Event.class);
            long offset = ((Event) item).offset();
            assertThat(offset).as("in order").isGreaterThan(previous);
            previous = offset;
            received++;
        }
        assertThat(received).as("some were lost").isLessThan(last - first + 1);
        assertThat(metric(relay, "felix_relay_fenced_total")).isZero();
        assertThat(metric(relay, "felix_relay_paced_closes_total")).isZero();
        assertThat(slow.ended()).isFalse();
    }

    @Test
    void whenTheLeaderLeaves_relayedSubscribersEndWithUnavailable_andSubscribingAgainServesTheNewLeader()
            throws Exception {
        cluster = TestCluster.startThree(dir, Map.of("cluster_relay_subscribe", "true"));
        String leaderId = connect(cluster.node("n1")).streams().create(TICKS, new StreamSpec(1, false, null, null, null))
                .shardInfo().get(0).leader();
        String relayId = cluster.nodes().keySet().stream().filter(id -> !id.equals(leaderId)).findFirst().orElseThrow();
        FelixServer relayNode = cluster.node(relayId);
        Publisher publisher = connect(cluster.node(leaderId)).publisher(TICKS);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> publisher.publish(bytes("warm-up")).firstOffset() >= 0);
        FelixClient client = connect(relayNode);
        Subscription relayed = client.subscribe(SubscribeOptions.of(TICKS));
        long before = publisher.publish(bytes("before")).firstOffset();
        assertThat(((Event) relayed.next(Duration.ofSeconds(20))).offset()).isEqualTo(before);

        cluster.stop(leaderId); // a clean stop: the shard moves, the old leader ends the relay stream
        await().atMost(Duration.ofSeconds(30)).until(relayed::ended);
        FelixClientException ended = catchThrowableOfType(FelixClientException.class,
                () -> relayed.next(Duration.ofSeconds(1)));
        assertThat(ended.code()).isEqualTo(ErrorCode.UNAVAILABLE);

        // Subscribing again on the same node works wherever the shard went (here: direct; elsewhere: relayed).
        Subscription again = await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> client.subscribe(SubscribeOptions.of(TICKS)), java.util.Objects::nonNull);
        String newLeader = await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> client.streams().describe(TICKS).shardInfo().get(0).leader(),
                        l -> l != null && !l.equals(leaderId));
        Publisher next = connect(cluster.node(newLeader)).publisher(TICKS);
        long after = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> next.publish(bytes("after")).firstOffset(), o -> o >= 0);
        Item item = again.next(Duration.ofSeconds(20));
        assertThat(item).isInstanceOf(Event.class);
        assertThat(((Event) item).offset()).isEqualTo(after);
    }

    /** Three relaying nodes, {@code stream} on them, a warmed-up publisher on its leader. */
    private record SlowSetup(dev.felix.wire.StreamDescription created, FelixServer relay, Publisher publisher,
            FelixClient slowClient) {
    }

    /**
     * Starts three relaying nodes (subscriber queues of 256 events, plus {@code settings}), creates {@code stream},
     * warms up a publisher on its leader, and connects a client to another node whose SDK buffers 16 events and
     * then withholds credit: a subscriber that does not read stalls the relay's writes to it.
     */
    private SlowSetup slowSetup(StreamRef stream, StreamSpec spec, Map<String, String> settings) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put("cluster_relay_subscribe", "true");
        all.put("subscriber_queue_events", "256");
        cluster = TestCluster.startThree(dir, all);
        var created = connect(cluster.node("n1")).streams().create(stream, spec);
        FelixServer leader = cluster.node(created.shardInfo().get(0).leader());
        FelixServer relay = cluster.nodes().values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        Publisher publisher = connect(leader).publisher(stream);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> publisher.publish(bytes("warm-up")).firstOffset() >= 0);
        FelixClient slowClient = FelixClient.connect(ClientConfig.builder(ClientTrust.certificates(cluster.ca().cert()))
                .broker(relay.quicAddress()).tenant("t1")
                .receiveQueue(16, 1 << 20, dev.felix.client.ReceivePolicy.BLOCK).build());
        cluster.track(slowClient);
        return new SlowSetup(created, relay, publisher, slowClient);
    }

    private static void assertEveryEvent(Subscription s, long first) {
        for (int i = 0; i < EVENTS; i++) {
            Item item = s.next(Duration.ofSeconds(20));
            assertThat(item).as("event " + i).isInstanceOf(Event.class);
            Event e = (Event) item;
            assertThat(e.offset()).isEqualTo(first + i);
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("m" + i);
        }
    }

    private static int subscribers(FelixServer leader) throws Exception {
        return leader.broker().stream(new StreamName("t1", "default", "ticks")).info().shards().get(0).subscribers();
    }

    /** Every {@code felix_relay_*} family the node exposes is in operations.md's Relay metrics, and vice versa. */
    private static void assertRelayMetricsDocumented(String scrape) throws Exception {
        java.util.Set<String> exposed = new java.util.TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (felix_relay_\\S+) \\S+$").matcher(scrape);
        while (type.find()) {
            exposed.add(type.group(1));
        }
        String doc = java.nio.file.Files.readString(
                Path.of(System.getProperty("felix.repo.root", "..")).resolve("docs/operations.md"));
        int start = doc.indexOf("## Relay metrics");
        String section = doc.substring(start, doc.indexOf("\n## ", start + 1));
        java.util.Set<String> documented = new java.util.TreeSet<>();
        Matcher name = Pattern.compile("`(felix_relay_[a-z0-9_]+)").matcher(section);
        while (name.find()) {
            documented.add(name.group(1));
        }
        assertThat(exposed).as("felix_relay_* families exposed").isNotEmpty();
        assertThat(documented).as("documented in docs/operations.md ## Relay metrics")
                .containsExactlyInAnyOrderElementsOf(exposed);
    }

    private static String scrape(FelixServer node) throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                + node.httpAddress().getPort() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double metric(FelixServer node, String series) throws Exception {
        String scrape = scrape(node);
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(series + " in the scrape").isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
