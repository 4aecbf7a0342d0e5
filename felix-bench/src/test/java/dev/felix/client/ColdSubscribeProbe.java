package dev.felix.client;

import dev.felix.demos.cluster.NodeProcess;
import dev.felix.transport.ClientTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where the time of a cold {@code felix bench fanout} subscribe goes: starts a broker process as the bench does,
 * connects {@code connections} clients sharing one {@link ClientResources}, sends every subscribe at once and
 * timestamps (System.nanoTime into arrays, nothing logged meanwhile) per connection: session ready, first and last
 * subscription confirmed. Around each round it reads both processes' CPU per thread ({@code /proc/PID/task}), the
 * machine's UDP counters and drops per socket ({@code /proc/net/snmp}, {@code /proc/net/udp}) and each client
 * connection's QUIC counters. Repeats {@code rounds} times on the same broker with fresh connections (round 2 on is
 * a warm broker), or on a new broker each round with {@code -Dprobe.freshBroker=true}. {@code -Dprobe.perfmap=true}
 * and {@code -Dprobe.dump=FILE} (with {@code -Dfelix.node.jvm=-XX:StartFlightRecording}) keep JIT symbols for perf
 * and the broker's flight recording. Linux only; a measuring tool, not a test, run by hand (see
 * docs/benchmarks.md, "Cold subscribe: where the time goes"):
 * {@code java -cp felix-bench/target/test-classes:felix-bench/target/felix-bench.jar
 * dev.felix.client.ColdSubscribeProbe 10000 100 2}. In package {@code dev.felix.client} to read a client's session
 * and QUIC connection.
 */
public final class ColdSubscribeProbe {

    private static final StreamRef STREAM = StreamRef.parse("t1/default/fanout");

    public static void main(String[] args) throws Exception {
        int subscribers = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int connections = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        // -Dprobe.freshBroker=true: a new broker process for every round (a warm client against a cold broker).
        boolean fresh = Boolean.getBoolean("probe.freshBroker");
        for (int r = 1; r <= rounds; ) {
            Path dir = Files.createTempDirectory("coldsub");
            System.out.println("dir " + dir);
            try (NodeProcess node = NodeProcess.startSingle("probe", dir.resolve("data"), dir.resolve("logs"),
                    NodeProcess.SERVER_JVM, List.of())) {
                ClientTrust trust = ClientTrust.certificates(node.certificate());
                java.util.function.Supplier<ClientConfig.Builder> base = () -> ClientConfig.builder(trust)
                        .broker(node.clientAddress()).tenant("t1").requestTimeout(Duration.ofSeconds(120));
                try (FelixClient admin = FelixClient.connect(base.get().build())) {
                    admin.streams().create(STREAM, StreamSpec.ephemeral(1));
                }
                System.out.println("broker pid " + node.pid() + " port " + node.clientAddress().getPort());
                do {
                    round(r, base, subscribers, connections, node.pid());
                    r++;
                } while (!fresh && r <= rounds);
                if (Boolean.getBoolean("probe.perfmap")) { // JIT symbols for perf
                    new ProcessBuilder("jcmd", String.valueOf(node.pid()), "Compiler.perfmap").inheritIO().start()
                            .waitFor();
                }
                String dump = System.getProperty("probe.dump");
                if (dump != null) { // the broker's flight recording, before it is stopped
                    new ProcessBuilder("jcmd", String.valueOf(node.pid()), "JFR.dump", "filename=" + dump)
                            .inheritIO().start().waitFor();
                }
            }
        }
    }

    private static void round(int round, java.util.function.Supplier<ClientConfig.Builder> base, int subscribers, int connections,
            long pid) throws Exception {
        ClientResources shared = ClientResources.create(0, 0);
        List<FelixClient> clients = new ArrayList<>();
        try {
            long c0 = System.nanoTime();
            for (int i = 0; i < connections; i++) {
                clients.add(FelixClient.connect(base.get().resources(shared).build()));
            }
            long connected = System.nanoTime() - c0;
            long[] ready = new long[connections];
            long[] first = new long[connections];
            long[] last = new long[connections];
            long[] done = new long[subscribers];
            List<CompletableFuture<Subscription>> pending = new ArrayList<>(subscribers);
            java.util.Map<String, Long> cpu0 = threadCpu(pid);
            java.util.Map<String, Long> self0 = threadCpu(ProcessHandle.current().pid());
            long[][] q0 = quicStats(clients);
            long[] udp0 = udpErrors();

            long t0 = System.nanoTime();
            System.out.println("t0 abs " + t0);
            for (int i = 0; i < subscribers; i++) {
                int c = i % connections;
                int sub = i;
                pending.add(clients.get(c).subscribeAsync(SubscribeOptions.of(STREAM), e -> { })
                        .whenComplete((s, err) -> {
                            long now = System.nanoTime();
                            done[sub] = now;
                            synchronized (first) {
                                if (first[c] == 0) {
                                    first[c] = now;
                                }
                                last[c] = Math.max(last[c], now);
                            }
                        }));
                if (i < connections) {
                    clients.get(c).session().ready().whenComplete((m, err) -> ready[c] = System.nanoTime());
                }
            }
            long sent = System.nanoTime();
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            long all = System.nanoTime();
            java.util.Map<String, Long> cpu1 = threadCpu(pid);
            java.util.Map<String, Long> self1 = threadCpu(ProcessHandle.current().pid());
            long[] udp1 = udpErrors();

            long[][] q1 = quicStats(clients);
            System.out.printf("UDP (whole machine) during the round: %d datagrams in, %d receive-buffer drops;"
                    + " drops so far by socket (port=drops, rcvbuf): %s%n", udp1[0] - udp0[0], udp1[1] - udp0[1],
                    socketDrops());
            System.out.println("broker CPU ms by thread: " + delta(cpu0, cpu1));
            System.out.println("client CPU ms by thread: " + delta(self0, self1));
            long[] sessionToLast = new long[connections];
            long[] sessionToFirst = new long[connections];
            for (int c = 0; c < connections; c++) {
                sessionToFirst[c] = first[c] - ready[c];
                sessionToLast[c] = last[c] - ready[c];
                ready[c] -= t0;
                first[c] -= t0;
                last[c] -= t0;
            }
            System.out.printf("round %d: %d subscribers over %d connections; connect (serial) %d ms;"
                    + " subscribeAsync calls %d ms; all ready %d ms%n", round, subscribers, connections,
                    ms(connected), ms(sent - t0), ms(all - t0));
            line("  session ready after t0", ready);
            line("  first sub done after t0", first);
            line("  last sub done after t0", last);
            lossReport(q0, q1, last);
            line("  ready -> first sub done", sessionToFirst);
            line("  ready -> last sub done", sessionToLast);
            for (int i = 0; i < subscribers; i++) {
                done[i] -= t0;
            }
            line("  each sub done after t0", done);
        } finally {
            for (FelixClient c : clients) {
                c.close();
            }
            shared.close();
        }
    }

    private static void line(String what, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf("%-28s min %6.1f  p10 %6.1f  p50 %6.1f  p90 %6.1f  max %6.1f ms%n", what, s[0] / 1e6,
                s[s.length / 10] / 1e6, s[s.length / 2] / 1e6, s[s.length * 9 / 10] / 1e6, s[s.length - 1] / 1e6);
    }

    /** Per client connection: packets sent, lost, retransmitted; path RTT (ns) and cwnd. */
    private static long[][] quicStats(List<FelixClient> clients) throws Exception {
        long[][] out = new long[clients.size()][];
        for (int i = 0; i < clients.size(); i++) {
            var c = clients.get(i).connection();
            var st = c.collectStats().get();
            var path = c.collectPathStats(0).get();
            out[i] = new long[] {st.sent(), st.lost(), st.retrans(), path.rtt(), path.cwnd(), st.recv()};
        }
        return out;
    }

    /** Which connections lost packets during the round, and how late their last subscription was confirmed. */
    private static void lossReport(long[][] q0, long[][] q1, long[] lastDone) {
        int lossy = 0;
        long lost = 0;
        long sent = 0;
        long recv = 0;
        List<Long> lossyDone = new ArrayList<>();
        List<Long> cleanDone = new ArrayList<>();
        for (int i = 0; i < q0.length; i++) {
            long l = q1[i][1] - q0[i][1];
            sent += q1[i][0] - q0[i][0];
            recv += q1[i][5] - q0[i][5];
            lost += l;
            if (l > 0) {
                lossy++;
                lossyDone.add(lastDone[i] / 1_000_000);
            } else {
                cleanDone.add(lastDone[i] / 1_000_000);
            }
        }
        java.util.Collections.sort(lossyDone);
        java.util.Collections.sort(cleanDone);
        System.out.printf("  client QUIC: %d packets sent, %d received, %d lost on %d connections; last sub done (ms)"
                + " on lossy connections %s; on the others: median %s max %s%n", sent, recv, lost, lossy, lossyDone,
                cleanDone.isEmpty() ? "-" : cleanDone.get(cleanDone.size() / 2),
                cleanDone.isEmpty() ? "-" : cleanDone.get(cleanDone.size() - 1));
        long maxRtt = 0;
        for (long[] q : q1) {
            maxRtt = Math.max(maxRtt, q[3]);
        }
        System.out.printf("  client QUIC: largest smoothed RTT after the round %.1f ms%n", maxRtt / 1e6);
    }

    /** The machine's UDP InDatagrams and RcvbufErrors (/proc/net/snmp). */
    private static long[] udpErrors() throws java.io.IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp")).stream()
                .filter(l -> l.startsWith("Udp:")).toList();
        List<String> names = List.of(lines.get(0).split(" "));
        String[] values = lines.get(1).split(" ");
        return new long[] {Long.parseLong(values[names.indexOf("InDatagrams")]),
                Long.parseLong(values[names.indexOf("RcvbufErrors")])};
    }

    /** Local port and drop count of every UDP socket that dropped (/proc/net/udp, udp6). */
    private static String socketDrops() throws java.io.IOException {
        StringBuilder out = new StringBuilder();
        for (String file : List.of("/proc/net/udp", "/proc/net/udp6")) {
            for (String l : Files.readAllLines(Path.of(file)).subList(1, Files.readAllLines(Path.of(file)).size())) {
                String[] f = l.trim().split("\\s+");
                long drops = Long.parseLong(f[f.length - 1]);
                if (drops > 0) {
                    String local = f[1];
                    out.append(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16)).append('=')
                            .append(drops).append(' ');
                }
            }
        }
        return out.toString();
    }

    /** CPU ticks (10 ms) per thread name, summed over same-named threads. */
    private static java.util.Map<String, Long> threadCpu(long pid) throws java.io.IOException {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    m.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended
                }
            }
        }
        return m;
    }

    private static String delta(java.util.Map<String, Long> a, java.util.Map<String, Long> b) {
        StringBuilder s = new StringBuilder();
        b.forEach((k, v) -> {
            long d = (v - a.getOrDefault(k, 0L)) * 10;
            if (d > 0) {
                s.append(k).append('=').append(d).append(' ');
            }
        });
        return s.toString();
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
