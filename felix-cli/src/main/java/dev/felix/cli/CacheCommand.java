package dev.felix.cli;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.ClusterCache;
import dev.felix.client.ClusterMirror;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixCluster;
import dev.felix.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix cache create|describe|put|get|delete|watch}. */
@Command(name = "cache", mixinStandardHelpOptions = true, description = "Create, read, write and watch caches.",
        subcommands = {CacheCommand.Create.class, CacheCommand.Describe.class, CacheCommand.Put.class,
            CacheCommand.Get.class, CacheCommand.Delete.class, CacheCommand.Watch.class, CacheListCommand.class,
            CacheDropCommand.class})
final class CacheCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static CacheRef parse(String text) {
        try {
            return CacheRef.parse(text);
        } catch (IllegalArgumentException e) {
            throw new Errors.UsageException(e.getMessage());
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Create a cache (a no-op if it exists with this definition).",
                "",
                "A memory cache keeps a bounded history of changes for watchers; a log cache (--backing log) writes every change to a durable log and survives restarts.",
                "",
                "In a cluster a log cache is replicated like a durable stream shard; --consistency quorum acknowledges a change once a majority of its replicas holds it."})
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE", description = "The cache to create.")
        String cache;

        @Option(names = "--backing", defaultValue = "memory", paramLabel = "BACKING", converter = OptionTypes.Backing.class,
                description = "memory (bounded change history) or log (durable, survives restarts)."
                        + " Default: ${DEFAULT-VALUE}.")
        String backing;

        @Option(names = "--ttl", paramLabel = "AGE", converter = OptionTypes.Age.class,
                description = "Default time to live of entries whose put gives none, e.g. 30s, 10m, 7d."
                        + " Default: entries never expire.")
        Duration ttl;

        @Option(names = "--max-entries", paramLabel = "N", converter = OptionTypes.Entries.class,
                description = "Capacity; past it the least recently used entries are evicted."
                        + " Default: 1000000 (the broker's).")
        Long maxEntries;

        @Option(names = "--fsync", paramLabel = "POLICY", converter = OptionTypes.Fsync.class,
                description = "Log backing only: when changes are forced to disk: on_commit (before each"
                        + " acknowledgement), periodic or none. Default: periodic.")
        String fsync;

        @Option(names = "--consistency", paramLabel = "MODE", converter = OptionTypes.Consistency.class,
                description = "Cluster, log backing only: leader (a change is acknowledged from the leader's log)"
                        + " or quorum (once a majority of the cache's replicas holds it), as for a durable stream."
                        + " A single node refuses quorum. Default: leader.")
        String consistency;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            if (fsync != null && !"log".equals(backing)) {
                throw new Errors.UsageException("--fsync applies to log-backed caches only: add --backing log");
            }
            if ("quorum".equals(consistency) && !"log".equals(backing)) {
                throw new Errors.UsageException("--consistency quorum applies to log-backed caches only (a memory"
                        + " cache lives on one node and is not replicated): add --backing log");
            }
            CacheSpec definition = new CacheSpec(backing, ttl, maxEntries, fsync);
            if (consistency != null) {
                definition = definition.withConsistency(consistency);
            }
            try (FelixClient c = client.connect(ref.tenant())) {
                print(c.caches().create(ref, definition));
            }
            return 0;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Show a cache's definition, entry count and next change offset.")
    static final class Describe implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE", description = "The cache to describe.")
        String cache;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            try (FelixClient c = client.connect(ref.tenant())) {
                print(c.caches().describe(ref));
            }
            return 0;
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true,
            description = "Set KEY to VALUE and print the change offset.")
    static final class Put implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE",
                description = "The cache; in dev mode it is created on first use.")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY", description = "The key to set.")
        String key;

        @Parameters(index = "2", paramLabel = "VALUE", description = "The value, as text (UTF-8).")
        String value;

        @Option(names = "--ttl", paramLabel = "AGE", converter = OptionTypes.Age.class,
                description = "Expire the entry after this long, e.g. 30s. Default: the cache's default TTL.")
        Duration ttl;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            if (client.brokers.size() > 1) { // the cache's leader, through redirects and failovers
                try (FelixCluster cl = client.cluster(ref.tenant()); ClusterCache cache = cl.cache(ref)) {
                    System.out.println(cache.put(key, value.getBytes(StandardCharsets.UTF_8), ttl));
                }
                return 0;
            }
            try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                long offset = cache.put(key, value.getBytes(StandardCharsets.UTF_8), ttl);
                System.out.println(offset);
            }
            return 0;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Print KEY's value; exit status 4 if it is not set (or expired).")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE", description = "The cache to read.")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY", description = "The key to read.")
        String key;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            Optional<byte[]> v;
            if (client.brokers.size() > 1) {
                try (FelixCluster cl = client.cluster(ref.tenant()); ClusterCache cache = cl.cache(ref)) {
                    v = cache.get(key);
                }
            } else {
                try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                    v = cache.get(key);
                }
            }
            if (v.isEmpty()) {
                System.err.println("felix: " + key + " is not set in " + ref);
                return Errors.ABSENT;
            }
            System.out.println(new String(v.get(), StandardCharsets.UTF_8));
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Remove KEY and print the change offset; exit 4 if it is not set.")
    static final class Delete implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE", description = "The cache.")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY", description = "The key to remove.")
        String key;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            long offset;
            if (client.brokers.size() > 1) {
                try (FelixCluster cl = client.cluster(ref.tenant()); ClusterCache cache = cl.cache(ref)) {
                    offset = cache.delete(key);
                }
            } else {
                try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                    offset = cache.delete(key);
                }
            }
            if (offset < 0) {
                System.err.println("felix: " + key + " is not set in " + ref + "; nothing was deleted");
                return Errors.ABSENT;
            }
            System.out.println(offset);
            return 0;
        }
    }

    @Command(name = "watch", mixinStandardHelpOptions = true,
            description = {"Print a cache's entries, then every change, until interrupted.",
                "",
                "The entries come first as snapshot<TAB>put<TAB>KEY<TAB>VALUE, then each change as OFFSET<TAB>put<TAB>KEY<TAB>VALUE or OFFSET<TAB>delete<TAB>KEY. Keeps up after any stall (re-watches from where it left off, or takes a fresh snapshot)."})
    static final class Watch implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE", description = "The cache to watch.")
        String cache;

        @Option(names = "--prefix", paramLabel = "PREFIX", description = "Only keys starting with PREFIX. Default: every key.")
        String prefix;

        @Option(names = "--count", paramLabel = "N", converter = OptionTypes.Count.class,
                description = "Exit after N changes (not counting the snapshot). Default: run until interrupted.")
        Long count;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws InterruptedException {
            CacheRef ref = parse(cache);
            if (client.brokers.size() > 1) { // follows the cache from node to node (ClusterMirror)
                try (FelixCluster cl = client.cluster(ref.tenant()); ClusterMirror mirror = cl.mirror(ref, prefix)) {
                    return follow(mirror::snapshotAndListen, mirror::endCause);
                }
            }
            try (FelixClient c = client.connect(ref.tenant())) {
                CacheMirror mirror = c.mirror(ref, prefix);
                int status = follow(mirror::snapshotAndListen, mirror::endCause);
                mirror.close();
                return status;
            }
        }

        /**
         * Prints the snapshot, then every change (and a {@code reset} line with the offset when the copy was
         * replaced by a snapshot of the cache's new home), until {@code --count} changes or the mirror ends.
         */
        private int follow(java.util.function.Function<CacheMirror.Listener, CacheMirror.Copy> snapshotAndListen,
                java.util.function.Supplier<dev.felix.client.FelixClientException> ended) throws InterruptedException {
            CountDownLatch done = new CountDownLatch(1);
            long[] seen = {0};
            // Changes arrive on the connection's event loop from the moment the listener is added: they wait for
            // the snapshot's lines, which print under the same lock.
            Object lines = new Object();
            CacheMirror.Listener printer = new CacheMirror.Listener() {
                @Override
                public void onChange(String key, byte[] value, long offset) {
                    synchronized (lines) {
                        System.out.println(offset + "\t" + (value == null ? "delete" : "put") + "\t" + key
                                + (value == null ? "" : "\t" + new String(value, StandardCharsets.UTF_8)));
                        System.out.flush();
                        if (count != null && ++seen[0] >= count) {
                            done.countDown();
                        }
                    }
                }

                @Override
                public void onReset(long offset) {
                    synchronized (lines) {
                        System.out.println(offset + "\treset");
                        System.out.flush();
                    }
                }
            };
            synchronized (lines) {
                CacheMirror.Copy snapshot = snapshotAndListen.apply(printer);
                snapshot.entries().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e ->
                        System.out.println("snapshot\tput\t" + e.getKey() + "\t"
                                + new String(e.getValue(), StandardCharsets.UTF_8)));
                System.out.flush();
            }
            // Without --count: until interrupted (Ctrl-C) or the watch fails.
            while (!done.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (ended.get() != null) {
                    throw ended.get();
                }
            }
            return 0;
        }
    }

    static void print(Message.CacheInfo info) {
        System.out.println("cache      " + info.tenantId() + "/" + info.namespace() + "/" + info.cache());
        System.out.println("backing    " + info.backing() + (info.fsync() != null ? " (fsync " + info.fsync() + ")" : ""));
        System.out.println("ttl        " + (info.ttlMs() == null ? "none" : Units.millis(info.ttlMs())));
        System.out.println("capacity   " + Long.toUnsignedString(info.maxEntries()) + " entries");
        // Absent from a broker that is not clustered: there every cache is leader (a single node refuses quorum).
        System.out.println("consistency " + (info.consistency() != null ? info.consistency() : "leader"));
        if (info.entries() != null) {
            System.out.println("entries    " + Long.toUnsignedString(info.entries()));
        }
        if (info.nextOffset() != null) {
            System.out.println("next       " + Long.toUnsignedString(info.nextOffset()));
        }
    }
}
