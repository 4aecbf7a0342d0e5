package dev.felix.bench.latency;

import dev.felix.bench.common.BenchBroker;
import dev.felix.bench.common.Progress;
import dev.felix.bench.common.Results;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.wire.QueuePolicy;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop publish latency: one message in flight, batch 1, per-message acknowledgement; the next
 * publish starts when the previous one is acknowledged. Latency is measured at <em>every</em>
 * subscriber from the publisher's clock reading (embedded in the payload) to receipt, in one JVM
 * (broker and clients share the machine, as in upstream Felix's latency demo).
 *
 * <p>Every subscriber checks that it receives every sequence number exactly once, in order; a run with
 * a missing, duplicated or reordered delivery is reported as failed. Subscribers use the lossless
 * {@code block} policy.
 */
public final class LatencyBenchmark {

    /** Bytes of sequence number and send timestamp at the head of every payload (not counted in "payload"). */
    static final int HEADER = 16;

    /**
     * @param payloads   payload sizes to run (bytes, plus the 16-byte header)
     * @param fanouts    subscriber counts to run
     * @param warmup     messages published before measuring
     * @param count      messages measured
     * @param resultsDir where the JSON result goes (null: not written)
     */
    public record Options(List<Integer> payloads, List<Integer> fanouts, int warmup, int count, Path resultsDir) {
        public static Options defaults() {
            return new Options(List.of(256), List.of(1, 10), 2_000, 20_000, Path.of("bench/results"));
        }
    }

    /** One measured cell. Latencies in nanoseconds; {@code errors} counts sequence violations. */
    public record Cell(int payload, int fanout, Histogram delivery, Histogram ack, long delivered, long errors,
            double seconds) {
    }

    private LatencyBenchmark() {
    }

    public static List<Cell> run(Options options, PrintStream out, PrintStream progress) throws Exception {
        List<Cell> cells = new ArrayList<>();
        for (int payload : options.payloads()) {
            for (int fanout : options.fanouts()) {
                cells.add(runCell(options, payload, fanout, progress));
            }
        }
        print(cells, out);
        if (options.resultsDir() != null) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("method", "closed loop, batch 1, per-message ack, latency at every subscriber");
            result.put("warmup", options.warmup());
            result.put("count", options.count());
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Cell c : cells) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("payload_bytes", c.payload());
                row.put("fanout", c.fanout());
                row.put("delivered", c.delivered());
                row.put("sequence_errors", c.errors());
                row.put("delivery_us", percentiles(c.delivery()));
                row.put("ack_us", percentiles(c.ack()));
                row.put("seconds", c.seconds());
                rows.add(row);
            }
            result.put("cells", rows);
            Path file = Results.write(options.resultsDir(), "latency", result);
            out.println("results written to " + file);
        }
        return cells;
    }

    private static Cell runCell(Options o, int payload, int fanout, PrintStream progressOut) throws Exception {
        int total = o.warmup() + o.count();
        StreamRef stream = new StreamRef("t1", "bench", "latency-" + payload + "-" + fanout);
        try (BenchBroker broker = BenchBroker.start(Map.of())) {
            List<FelixClient> clients = new ArrayList<>();
            List<Subscriber> subscribers = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(fanout);
            try {
                for (int i = 0; i < fanout; i++) {
                    FelixClient c = broker.connect("t1");
                    clients.add(c);
                    Subscription s = c.subscribe(SubscribeOptions.of(stream).withQueue(QueuePolicy.BLOCK, null));
                    Subscriber sub = new Subscriber(s, o.warmup(), total, done);
                    subscribers.add(sub);
                    sub.start();
                }
                FelixClient pubClient = broker.connect("t1");
                clients.add(pubClient);
                Publisher publisher = pubClient.publisher(stream);
                Histogram ack = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                Progress progress = new Progress(progressOut,
                        String.format("latency payload=%d fanout=%d", payload, fanout), total);
                byte[] body = new byte[payload + HEADER];
                long started = System.nanoTime();
                for (int seq = 0; seq < total; seq++) {
                    byte[] message = body.clone();
                    long sent = System.nanoTime();
                    ByteBuffer.wrap(message).putLong(seq).putLong(sent);
                    publisher.publish(message);
                    long acked = System.nanoTime();
                    if (seq >= o.warmup()) {
                        ack.recordValue(acked - sent);
                    }
                    progress.update(seq + 1);
                }
                if (!done.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("subscribers did not receive all " + total + " messages in 60 s");
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                Histogram delivery = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                long delivered = 0;
                long errors = 0;
                for (Subscriber s : subscribers) {
                    delivery.add(s.latency);
                    delivered += s.received.get();
                    errors += s.errors.get();
                }
                publisher.close();
                return new Cell(payload, fanout, delivery, ack, delivered, errors, seconds);
            } finally {
                for (Subscriber s : subscribers) {
                    s.finish();
                }
                for (FelixClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /** Reads one subscription on its own thread, recording latency and checking the sequence. */
    private static final class Subscriber extends Thread {
        final Subscription subscription;
        final int warmup;
        final int total;
        final CountDownLatch done;
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong received = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        volatile boolean running = true;

        Subscriber(Subscription subscription, int warmup, int total, CountDownLatch done) {
            super("bench-subscriber");
            setDaemon(true);
            this.subscription = subscription;
            this.warmup = warmup;
            this.total = total;
            this.done = done;
        }

        @Override
        public void run() {
            long expected = 0;
            while (running && expected < total) {
                Item item;
                try {
                    item = subscription.next(Duration.ofMillis(100));
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    break;
                }
                if (item instanceof Event e) {
                    long now = System.nanoTime();
                    ByteBuffer b = ByteBuffer.wrap(e.payload());
                    long seq = b.getLong();
                    long sent = b.getLong();
                    if (seq != expected) {
                        errors.incrementAndGet();
                    }
                    expected = seq + 1;
                    received.incrementAndGet();
                    if (seq >= warmup) {
                        latency.recordValue(Math.max(0, now - sent));
                    }
                } else if (item instanceof Gap) {
                    errors.incrementAndGet();
                }
            }
            done.countDown();
        }

        void finish() {
            running = false;
            subscription.close();
        }
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", micros(h.getValueAtPercentile(50)));
        m.put("p99", micros(h.getValueAtPercentile(99)));
        m.put("p999", micros(h.getValueAtPercentile(99.9)));
        m.put("max", micros(h.getMaxValue()));
        m.put("samples", h.getTotalCount());
        return m;
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }

    static void print(List<Cell> cells, PrintStream out) {
        out.println();
        out.println("Closed-loop latency (batch 1, per-message ack), measured at every subscriber, in microseconds");
        out.printf("%8s %7s %9s %9s %9s %9s %9s | %9s %9s %9s | %s%n", "payload", "fanout", "samples",
                "p50", "p99", "p999", "max", "ack p50", "ack p99", "ack p999", "sequence");
        for (Cell c : cells) {
            Histogram d = c.delivery();
            Histogram a = c.ack();
            out.printf("%8d %7d %9d %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %s%n", c.payload(), c.fanout(),
                    d.getTotalCount(), micros(d.getValueAtPercentile(50)), micros(d.getValueAtPercentile(99)),
                    micros(d.getValueAtPercentile(99.9)), micros(d.getMaxValue()),
                    micros(a.getValueAtPercentile(50)), micros(a.getValueAtPercentile(99)),
                    micros(a.getValueAtPercentile(99.9)),
                    c.errors() == 0 ? "ok (" + c.delivered() + " checked)" : c.errors() + " ERRORS");
        }
    }
}
