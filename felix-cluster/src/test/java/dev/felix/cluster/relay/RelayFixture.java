package dev.felix.cluster.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.FelixError;
import dev.felix.core.StreamName;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/** A relay on a fake clock and a manual executor: nothing runs until the test says so. */
final class RelayFixture {

    /** Nanoseconds the test sets; starts away from 0 so no code may assume a zero origin. */
    static final class Clock implements LongSupplier {
        private long now = 1_000_000_000_000L;

        @Override
        public synchronized long getAsLong() {
            return now;
        }

        synchronized void advance(Duration d) {
            now += d.toNanos();
        }
    }

    /** Queues tasks; {@link #runAll()} runs them (and what they queue) on the test thread. */
    static final class ManualExecutor implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable task) {
            tasks.addLast(task);
        }

        void runAll() {
            for (int i = 0; i < 1_000_000; i++) {
                Runnable next;
                synchronized (this) {
                    next = tasks.pollFirst();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
            throw new AssertionError("tasks kept queueing tasks");
        }
    }

    /** Records what it is offered; refuses everything while stalled. */
    static final class Sink implements RelaySink {
        final List<Delivery> items = new ArrayList<>();
        volatile boolean stalled;
        volatile FelixError ended;

        @Override
        public synchronized boolean offer(Delivery item) {
            if (stalled) {
                return false;
            }
            items.add(item);
            return true;
        }

        @Override
        public void end(FelixError error) {
            assertThat(ended).as("ended once").isNull();
            ended = error;
        }

        /** Every event offset received, in order. */
        synchronized List<Long> offsets() {
            List<Long> out = new ArrayList<>();
            for (Delivery d : items) {
                if (d instanceof EventBatch b) {
                    for (long o = b.baseOffset(); o < b.endOffset(); o++) {
                        out.add(o);
                    }
                }
            }
            return out;
        }

        synchronized List<GapNotice> gaps() {
            List<GapNotice> out = new ArrayList<>();
            for (Delivery d : items) {
                if (d instanceof GapNotice g) {
                    out.add(g);
                }
            }
            return out;
        }
    }

    final Clock clock = new Clock();
    final ManualExecutor executor = new ManualExecutor();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Relay relay;

    RelayFixture(RelaySettings settings) {
        this(settings, null);
    }

    RelayFixture(RelaySettings settings, ResumeHook hook) {
        relay = Relay.create(settings, clock, executor, registry, hook);
    }

    static RelayKey key(String stream) {
        return new RelayKey(new StreamName("t1", "default", stream), 0);
    }

    /** A batch of {@code count} one-byte events at {@code base}. */
    static EventBatch batch(long base, int count) {
        byte[][] payloads = new byte[count][];
        for (int i = 0; i < count; i++) {
            payloads[i] = new byte[] {(byte) (base + i)};
        }
        return new EventBatch(0, base, payloads, 0);
    }

    static List<Long> range(long from, long toExclusive) {
        List<Long> out = new ArrayList<>();
        for (long o = from; o < toExclusive; o++) {
            out.add(o);
        }
        return out;
    }

    void run() {
        executor.runAll();
    }

    void tick() {
        relay.tick();
        executor.runAll();
    }

    double counter(String name, String... tags) {
        var c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }
}
