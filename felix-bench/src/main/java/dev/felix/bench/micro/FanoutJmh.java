package dev.felix.bench.micro;

import dev.felix.core.broker.Broker;
import dev.felix.core.CoreConfig;
import dev.felix.core.FelixError;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamName;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The core fanout path without the network: one publish of a batch to a shard, fanned out to N
 * in-process subscribers, each of which then polls it. With {@code executor=inline} the shard writer runs
 * on the publishing thread, so one operation is exactly publish + fanout + N polls; with {@code pool}
 * the writer hops to the shard thread pool and the benchmark thread waits for every subscriber (the
 * hand-off cost included). Every delivery is checked: a gap or a wrong offset fails the benchmark.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FanoutJmh {

    @Param({"1", "10"})
    public int fanout;

    @Param({"1", "64"})
    public int batch;

    @Param({"256"})
    public int payload;

    @Param({"inline"})
    public String executor;

    private Broker broker;
    private Shard shard;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private long[] nextOffset;
    private byte[] body;

    private static final PublishListener IGNORE = new PublishListener() {
        @Override
        public void accepted(int shard, long firstOffset, int count) {
        }

        @Override
        public void failed(FelixError error) {
            throw new IllegalStateException("publish failed: " + error);
        }
    };

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        broker = new Broker(CoreConfig.defaults().withInlineWriters(executor.equals("inline")));
        shard = broker.stream(new StreamName("t1", "bench", "fanout")).shard(0);
        for (int i = 0; i < fanout; i++) {
            Subscription s = shard.subscribe(SubscribeRequest.from(StartPosition.LATEST)).get(10, TimeUnit.SECONDS);
            s.listen(new SubscriptionListener() {
                @Override
                public void onDeliveryReady() {
                    // polled by the benchmark thread
                }

                @Override
                public void onEnd(FelixError error) {
                }
            });
            subscriptions.add(s);
        }
        nextOffset = new long[fanout];
        body = new byte[payload];
    }

    @Benchmark
    public long publishAndDrain() {
        byte[][] payloads = new byte[batch][];
        for (int i = 0; i < batch; i++) {
            payloads[i] = body;
        }
        PublishRequest request = PublishRequest.of(payloads, IGNORE);
        while (!shard.tryPublish(request)) {
            Thread.onSpinWait();
        }
        long seen = 0;
        for (int i = 0; i < fanout; i++) {
            Subscription s = subscriptions.get(i);
            long want = nextOffset[i] + batch;
            while (nextOffset[i] < want) {
                Delivery d = s.poll();
                if (d == null) {
                    Thread.onSpinWait(); // pool executor: the writer has not reached this subscriber yet
                    continue;
                }
                if (!(d instanceof EventBatch b) || b.baseOffset() != nextOffset[i]) {
                    throw new IllegalStateException("subscriber " + i + " expected offset " + nextOffset[i] + ", got " + d);
                }
                nextOffset[i] = b.endOffset();
                seen += b.eventCount();
            }
        }
        return seen;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (Subscription s : subscriptions) {
            s.close();
        }
        broker.close();
    }
}
