package dev.felix.cli;

import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.transport.TlsException;
import dev.felix.wire.ClusterNodeStatus;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.Message;
import dev.felix.wire.ReplicaLag;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix cluster ca|status}. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Make a cluster CA; show a cluster's members, leaders and lag.",
        subcommands = {ClusterCommand.Ca.class, ClusterCommand.Status.class})
final class ClusterCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "ca", mixinStandardHelpOptions = true,
            description = {"Create a cluster CA in DIR: ca.pem and ca.key.", "",
                "DIR/ca.pem is the certificate every node and client trusts; DIR/ca.key its private key (nodes given"
                    + " --cluster-ca-key issue their own certificates with it; keep it safe). Refuses to overwrite an"
                    + " existing CA."})
    static final class Ca implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "Directory to write the CA into (created if missing).")
        Path dir;

        @Override
        public Integer call() {
            if (Files.exists(dir.resolve(ClusterTls.CA_CERT_FILE)) || Files.exists(dir.resolve(ClusterTls.CA_KEY_FILE))) {
                throw new Errors.UsageException(dir + " already holds a CA (" + ClusterTls.CA_CERT_FILE + " / "
                        + ClusterTls.CA_KEY_FILE + "); refusing to overwrite it: choose another directory");
            }
            try {
                ClusterTls.CaFiles files = ClusterTls.createCa(dir);
                System.out.println("cluster CA certificate  " + files.cert() + "  (give it to every node:"
                        + " --cluster-ca-cert; and to clients: --ca)");
                System.out.println("cluster CA private key  " + files.key() + "  (nodes with --cluster-ca-key issue"
                        + " their own certificates; keep it safe)");
            } catch (TlsException e) {
                throw new Errors.UsageException("cannot create a CA in " + dir + ": " + e.getMessage());
            }
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Show members, shard leaders, epochs and follower lag.", "",
                "Members and their liveness, and for every replicated shard its leader, epoch, replicas, status, high"
                    + " watermark and each follower's lag. Asks the --broker node, then every other member for the"
                    + " shards it leads."})
    static final class Status implements Callable<Integer> {
        @Option(names = "--tenant", paramLabel = "TENANT", defaultValue = "${env:FELIX_TENANT:-t1}",
                description = "Tenant to authenticate as (env FELIX_TENANT). Default: ${DEFAULT-VALUE}.")
        String tenant;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            Message.ClusterStatusResult first;
            try (FelixClient c = client.connect(tenant)) {
                first = c.cluster().status();
            }
            Map<String, ClusterShardStatus> shards = new LinkedHashMap<>();
            for (ClusterShardStatus s : first.shards()) {
                shards.put(key(s), s);
            }
            Map<String, String> unanswered = new LinkedHashMap<>();
            for (ClusterNodeStatus n : first.nodes()) {
                if (n.node().equals(first.node()) || !"up".equals(n.status()) || n.addr() == null) {
                    continue;
                }
                try (FelixClient c = client.connect(tenant, address(n.addr()))) {
                    for (ClusterShardStatus s : c.cluster().status().shards()) {
                        if (n.node().equals(s.leader()) && s.hwm() != null) {
                            shards.put(key(s), s); // the leader's own view carries its progress
                        }
                    }
                } catch (FelixClientException e) {
                    unanswered.put(n.node(), e.getMessage());
                }
            }
            System.out.println("cluster (asked " + first.node() + ")");
            System.out.printf("%-12s %-22s %s%n", "NODE", "ADDRESS", "STATUS");
            for (ClusterNodeStatus n : first.nodes()) {
                System.out.printf("%-12s %-22s %s%n", n.node(), n.addr() == null ? "-" : n.addr(),
                        n.status() + (unanswered.containsKey(n.node()) ? " (no answer: " + unanswered.get(n.node()) + ")"
                                : ""));
            }
            System.out.println();
            if (shards.isEmpty()) {
                System.out.println("(no replicated shards or caches)");
                return 0;
            }
            System.out.printf("%-36s %-11s %-10s %6s  %-16s %10s  %-24s %s%n", "SHARD", "CONSISTENCY", "LEADER", "EPOCH",
                    "REPLICAS", "HWM", "LAG (records)", "STATUS");
            for (ClusterShardStatus s : shards.values()) {
                String lag = s.lag() == null ? "-" : s.lag().stream().map(ReplicaLag::node).sorted()
                        .map(node -> node + ":" + s.lag().stream().filter(l -> l.node().equals(node)).findFirst()
                                .map(ReplicaLag::records).orElse(0L))
                        .collect(Collectors.joining(" "));
                System.out.printf("%-36s %-11s %-10s %6d  %-16s %10s  %-24s %s%n",
                        (s.kind().equals("cache") ? "cache " : "") + s.name() + (s.kind().equals("stream") ? "/" + s.shard() : ""),
                        s.consistency(), s.leader() == null ? "-" : s.leader(), s.epoch(), String.join(",", s.replicas()),
                        s.hwm() == null ? "-" : Long.toUnsignedString(s.hwm()), lag, s.status());
            }
            return 0;
        }

        private static String key(ClusterShardStatus s) {
            return s.kind() + " " + s.name() + "/" + s.shard();
        }

        private static InetSocketAddress address(String hostPort) {
            int colon = hostPort.lastIndexOf(':');
            return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        }
    }
}
