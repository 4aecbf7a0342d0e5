package dev.felix.bench.watch;

import dev.felix.bench.common.PeerProcess;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * etcd: a single-member {@code etcd} process (it always fsyncs its WAL before acknowledging a put; 3.4 has
 * no switch to turn that off), spoken to over native gRPC (see {@link EtcdProto} for why by hand). The
 * writer sends unary {@code Put}s on one channel, many in flight; concurrent unary calls may be applied in
 * any order (each is its own HTTP/2 stream, handled by its own goroutine), so {@link #orderedPuts()} is
 * false: the final check takes etcd's own final state as the truth and counts reordered writes. Each
 * watcher is its own channel (its own HTTP/2 connection): {@code Range} over the prefix gives the snapshot
 * and its revision r, then {@code Watch} from r + 1 — gap-free by construction.
 */
final class EtcdWatchTarget implements WatchTarget {

    private final AtomicBoolean closing = new AtomicBoolean();

    private final PeerProcess server;
    private final String version;
    private final ManagedChannel writer;
    private final List<ManagedChannel> channels = new ArrayList<>();

    private EtcdWatchTarget(PeerProcess server, String version) {
        this.server = server;
        this.version = version;
        this.writer = channel(server.port());
    }

    static WatchSystem system(String name, String binary) {
        return new PeerSystem(name, binary) {
            @Override
            public WatchTarget start(Path workDir) throws Exception {
                int port = PeerProcess.freePort();
                int peerPort = PeerProcess.freePort();
                String client = "http://127.0.0.1:" + port;
                String peer = "http://127.0.0.1:" + peerPort;
                PeerProcess p = PeerProcess.start(name, List.of(path().toString(), "--name", "bench",
                        "--data-dir", workDir.resolve("etcd-data").toString(),
                        "--listen-client-urls", client, "--advertise-client-urls", client,
                        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                        "--initial-cluster", "bench=" + peer, "--initial-cluster-state", "new"),
                        port, workDir, Duration.ofSeconds(30));
                try {
                    EtcdWatchTarget t = new EtcdWatchTarget(p, version());
                    t.awaitReady();
                    return t;
                } catch (Exception | Error e) {
                    p.close();
                    throw e;
                }
            }
        };
    }

    private static ManagedChannel channel(int port) {
        return ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
                .maxInboundMessageSize(64 << 20).build();
    }

    /** The client port accepts before the member has elected itself leader: wait for a Range to answer. */
    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        byte[] probe = EtcdProto.rangeRequest("probe".getBytes(StandardCharsets.UTF_8),
                "probf".getBytes(StandardCharsets.UTF_8));
        while (true) {
            try {
                ClientCalls.blockingUnaryCall(writer, EtcdProto.RANGE, CallOptions.DEFAULT.withDeadlineAfter(2,
                        TimeUnit.SECONDS), probe);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("etcd did not answer a Range within 30 s: " + e.getMessage()
                            + "\n" + server.logTail(), e);
                }
                Thread.sleep(50);
            }
        }
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String describe() {
        return version + ", single member, WAL fsync per commit (always); native gRPC (grpc-java); writer: unary Put "
                + "on one channel, up to the in-flight window; watchers: Range + Watch from rev+1, one channel each";
    }

    @Override
    public boolean orderedPuts() {
        return false;
    }

    @Override
    public CompletableFuture<?> put(String key, byte[] value) {
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(writer.newCall(EtcdProto.PUT, CallOptions.DEFAULT),
                EtcdProto.putRequest(key.getBytes(StandardCharsets.UTF_8), value), new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] reply) {
                        done.complete(reply);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(null); // after onNext: a no-op
                    }
                });
        return done;
    }

    @Override
    public Watcher startWatcher(String prefix, Listener listener) throws Exception {
        ManagedChannel ch = channel(server.port());
        synchronized (channels) {
            channels.add(ch);
        }
        byte[] key = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] end = EtcdProto.prefixEnd(key);
        EtcdProto.Range snapshot = EtcdProto.parseRange(ClientCalls.blockingUnaryCall(ch, EtcdProto.RANGE,
                CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), EtcdProto.rangeRequest(key, end)));
        Map<String, byte[]> state = new ConcurrentHashMap<>();
        for (EtcdProto.KeyValue kv : snapshot.kvs()) {
            String k = new String(kv.key(), StandardCharsets.UTF_8);
            state.put(k, kv.value());
            listener.onValue(k, kv.value());
        }
        AtomicLong responses = new AtomicLong();
        AtomicLong events = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        CompletableFuture<Void> created = new CompletableFuture<>();
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(
                ch.newCall(EtcdProto.WATCH, CallOptions.DEFAULT), new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] message) {
                        EtcdProto.WatchResponse r = EtcdProto.parseWatchResponse(message);
                        responses.incrementAndGet();
                        if (r.created()) {
                            created.complete(null);
                        }
                        if (r.canceled()) {
                            failure.compareAndSet(null, "watch canceled: " + r.cancelReason()
                                    + (r.compactRevision() > 0 ? " (compacted at " + r.compactRevision() + ")" : ""));
                            created.completeExceptionally(new IllegalStateException(failure.get()));
                        }
                        for (EtcdProto.KeyValue kv : r.events()) {
                            String k = new String(kv.key(), StandardCharsets.UTF_8);
                            state.put(k, kv.value());
                            events.incrementAndGet();
                            listener.onValue(k, kv.value());
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        failure.compareAndSet(null, "watch stream: " + t);
                        created.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        failure.compareAndSet(null, "watch stream closed by etcd");
                    }
                });
        requests.onNext(EtcdProto.watchCreateRequest(key, end, snapshot.revision() + 1));
        created.get(60, TimeUnit.SECONDS);
        return new Watcher() {
            @Override
            public Map<String, byte[]> state() {
                return new HashMap<>(state);
            }

            @Override
            public String failure() {
                return failure.get();
            }

            @Override
            public Map<String, Long> counters() {
                Map<String, Long> m = new LinkedHashMap<>();
                m.put("watch_responses", responses.get());
                m.put("events", events.get());
                return m;
            }

            @Override
            public void close() {
                try {
                    requests.onCompleted();
                } catch (RuntimeException ignored) {
                    // the channel is shut down with the target
                }
            }
        };
    }

    @Override
    public Map<String, byte[]> read(List<String> keys) {
        Map<String, byte[]> wanted = new HashMap<>();
        for (String k : keys) {
            wanted.put(k, null);
        }
        byte[] prefix = WatchBenchmark.PREFIX.getBytes(StandardCharsets.UTF_8);
        EtcdProto.Range r = EtcdProto.parseRange(ClientCalls.blockingUnaryCall(writer, EtcdProto.RANGE,
                CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS),
                EtcdProto.rangeRequest(prefix, EtcdProto.prefixEnd(prefix))));
        Map<String, byte[]> out = new HashMap<>();
        for (EtcdProto.KeyValue kv : r.kvs()) {
            String k = new String(kv.key(), StandardCharsets.UTF_8);
            if (wanted.containsKey(k)) {
                out.put(k, kv.value());
            }
        }
        return out;
    }

    @Override
    public long brokerCpuNanos() {
        return server.cpuNanos();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // idempotent: the run's finally and a shutdown hook may both call it
        }
        List<ManagedChannel> all = new ArrayList<>();
        synchronized (channels) {
            all.addAll(channels);
        }
        all.add(writer);
        for (ManagedChannel c : all) {
            c.shutdownNow();
        }
        for (ManagedChannel c : all) {
            try {
                c.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        server.close();
    }
}
