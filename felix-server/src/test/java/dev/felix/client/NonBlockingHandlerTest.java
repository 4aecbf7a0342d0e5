package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import dev.felix.wire.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link NonBlockingHandler} runs on the connection's I/O thread (no hand-off to the handler threads), in order,
 * with its end reported as for any handler; a blocking SDK call made from it is refused before anything is sent and
 * ends only that subscription, while the asynchronous forms work from it.
 */
@Timeout(120)
class NonBlockingHandlerTest {

    private static final StreamRef IN = StreamRef.parse("t1/default/nb-in");
    private static final StreamRef OUT = StreamRef.parse("t1/default/nb-out");

    @TempDir
    Path dir;

    @Test
    void runsOnTheConnectionsIoThread_everyEventInOrder_thenItsEnd() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            List<Long> offsets = new ArrayList<>(); // written by the handler, read by the test: guarded by itself
            Set<String> threads = ConcurrentHashMap.newKeySet();
            CompletableFuture<FelixClientException> end = new CompletableFuture<>();
            Subscription s = c.subscribe(SubscribeOptions.of(IN), new NonBlockingHandler() {
                @Override
                public void onEvent(Event event) {
                    threads.add(Thread.currentThread().getName());
                    synchronized (offsets) {
                        offsets.add(event.offset());
                    }
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    end.complete(cause);
                }
            });
            Publisher p = c.publisher(IN);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                acks.add(p.publishAsync(null, new byte[] {(byte) i}));
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                synchronized (offsets) {
                    return offsets.size() == 2_000;
                }
            });

            synchronized (offsets) {
                for (int i = 0; i < offsets.size(); i++) {
                    assertThat(offsets.get(i)).as("event %d", i).isEqualTo(i);
                }
            }
            assertThat(threads).as("called on the client's I/O thread, never a handler thread").isNotEmpty()
                    .allSatisfy(name -> assertThat(name).startsWith("felix-quic-client"));
            assertThat(end).isNotDone();

            s.close();
            assertThat(end.get(20, TimeUnit.SECONDS)).as("closed by the application: no cause").isNull();
        }
    }

    @Test
    void aBlockingCallInside_isRefusedBeforeSending_endsOnlyThatSubscription_andAsyncFormsWork() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Publisher relay = c.publisher(OUT);
            Subscription out = c.subscribe(SubscribeOptions.of(OUT));
            CompletableFuture<FelixClientException> relayEnd = new CompletableFuture<>();
            // Relays every event with publishAsync: allowed, it never waits.
            c.subscribe(SubscribeOptions.of(IN), new NonBlockingHandler() {
                @Override
                public void onEvent(Event event) {
                    relay.publishAsync(null, event.payload());
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    relayEnd.complete(cause);
                }
            });
            CompletableFuture<FelixClientException> blockingEnd = new CompletableFuture<>();
            // Calls the blocking publish: refused at once, so nothing goes out and the subscription ends.
            c.subscribe(SubscribeOptions.of(IN), new NonBlockingHandler() {
                @Override
                public void onEvent(Event event) {
                    relay.publish(new byte[] {42});
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    blockingEnd.complete(cause);
                }
            });

            Publisher p = c.publisher(IN);
            for (int i = 0; i < 5; i++) {
                p.publish(new byte[] {(byte) i});
            }

            FelixClientException cause = blockingEnd.get(20, TimeUnit.SECONDS);
            assertThat(cause.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(cause.getMessage()).contains("NonBlockingHandler").contains("publishAsync");
            for (int i = 0; i < 5; i++) {
                Item item = out.next(Duration.ofSeconds(20));
                assertThat(item).isInstanceOf(Event.class);
                assertThat(((Event) item).payload()).as("relayed in order, and nothing from the refused publish")
                        .containsExactly((byte) i);
            }
            assertThat(out.next(Duration.ofMillis(300))).as("the refused publish sent nothing").isNull();
            assertThat(relayEnd).as("the other subscription carries on").isNotDone();
            assertThat(c.connected()).isTrue();
        }
    }
}
