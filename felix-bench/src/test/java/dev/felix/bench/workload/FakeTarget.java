package dev.felix.bench.workload;

import dev.felix.bench.common.Stamp;
import dev.felix.bench.system.Target;
import dev.felix.bench.system.TargetFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-memory system for harness tests: delivers every message to every subscriber synchronously, on
 * the publisher's thread, except that subscriber 0 never gets sequence {@code drop} (-1: nothing dropped).
 */
class FakeTarget implements Target {

    private final long drop;
    private final boolean backpressure;
    private final List<Handler> handlers = new CopyOnWriteArrayList<>();

    FakeTarget(long drop, boolean backpressure) {
        this.drop = drop;
        this.backpressure = backpressure;
    }

    static TargetFactory factory(String name, long drop, boolean backpressure) {
        return new TargetFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String unavailable() {
                return null;
            }

            @Override
            public Target start() {
                return new FakeTarget(drop, backpressure);
            }
        };
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public boolean backpressure() {
        return backpressure;
    }

    @Override
    public boolean brokerInThisProcess() {
        return true;
    }

    @Override
    public long brokerCpuNanos() {
        return -1;
    }

    private void deliver(byte[] m) {
        for (int i = 0; i < handlers.size(); i++) {
            if (i == 0 && Stamp.seq(m) == drop) {
                continue;
            }
            handlers.get(i).onMessage(m);
        }
    }

    @Override
    public Publisher publisher(String topic) {
        return new Publisher() {
            @Override
            public void publishConfirmed(byte[] message) {
                deliver(message);
            }

            @Override
            public void publishBatch(List<byte[]> messages) {
                messages.forEach(FakeTarget.this::deliver);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public AutoCloseable subscribe(String topic, Handler handler) {
        handlers.add(handler);
        return () -> handlers.remove(handler);
    }

    @Override
    public void close() {
    }
}
