package dev.felix.bench.watch;

import dev.felix.server.FelixServer;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigLoader;
import dev.felix.server.HeapSoftMax;
import dev.felix.transport.NettyLeakDefault;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A Felix broker in a process of its own, for {@code felix bench watch}: the harness starts it like a peer
 * binary (see {@link FelixWatchTarget}), so Felix is measured as etcd, nats-server and redis-server are —
 * its own process, its own heap and garbage collector, its CPU read from {@code /proc} — and not sharing
 * the harness JVM with a hundred client connections.
 *
 * <p>Arguments are broker settings {@code SETTING=VALUE} (e.g. {@code data_dir=/tmp/x}). Runs until
 * terminated; SIGTERM closes the broker.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        NettyLeakDefault.apply(); // as ./felix server runs
        HeapSoftMax.install();
        Map<String, String> flags = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected SETTING=VALUE, got '" + a + "'");
            }
            flags.put(a.substring(0, eq), a.substring(eq + 1));
        }
        BrokerConfig config = ConfigLoader.load(null, Map.of(), flags);
        FelixServer server = FelixServer.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "felix-bench-broker-shutdown"));
        new CountDownLatch(1).await();
    }
}
