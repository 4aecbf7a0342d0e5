package dev.felix.cli;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.FelixClient;
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

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a cache (idempotent).")
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE")
        String cache;

        @Option(names = "--backing", defaultValue = "memory", paramLabel = "memory|log",
                description = "memory (bounded change history) or log (durable, survives restarts); default ${DEFAULT-VALUE}")
        String backing;

        @Option(names = "--ttl", paramLabel = "AGE", description = "default TTL of entries, e.g. 30s, 10m")
        String ttl;

        @Option(names = "--max-entries", paramLabel = "N", description = "capacity; least recently used entries are evicted past it")
        Long maxEntries;

        @Option(names = "--fsync", paramLabel = "on_commit|periodic|none", description = "log backing: when changes are forced to disk")
        String fsync;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            Duration defaultTtl = ttl == null ? null : StreamCommand.parseAge(ttl);
            try (FelixClient c = client.connect(ref.tenant())) {
                print(c.caches().create(ref, new CacheSpec(backing, defaultTtl, maxEntries, fsync)));
            }
            return 0;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true, description = "Show a cache's definition and state.")
    static final class Describe implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE")
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

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Set KEY to VALUE; prints the change offset.")
    static final class Put implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY")
        String key;

        @Parameters(index = "2", paramLabel = "VALUE")
        String value;

        @Option(names = "--ttl", paramLabel = "AGE", description = "expire after this long (e.g. 30s); default: the cache's")
        String ttl;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                long offset = cache.put(key, value.getBytes(StandardCharsets.UTF_8),
                        ttl == null ? null : StreamCommand.parseAge(ttl));
                System.out.println(offset);
            }
            return 0;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Print KEY's value; exit status 4 if it is absent or expired.")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY")
        String key;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                Optional<byte[]> v = cache.get(key);
                if (v.isEmpty()) {
                    System.err.println("felix: " + key + " is not set");
                    return 4;
                }
                System.out.println(new String(v.get(), StandardCharsets.UTF_8));
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Remove KEY; prints the change offset.")
    static final class Delete implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/CACHE")
        String cache;

        @Parameters(index = "1", paramLabel = "KEY")
        String key;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            CacheRef ref = parse(cache);
            try (FelixClient c = client.connect(ref.tenant()); Cache cache = c.cache(ref)) {
                System.out.println(cache.delete(key));
            }
            return 0;
        }
    }

    @Command(name = "watch", mixinStandardHelpOptions = true,
            description = {"Print the cache's current entries, then every change: OFFSET<TAB>OP<TAB>KEY<TAB>VALUE.",
                "Keeps up after any stall (re-watches from where it left off, or takes a fresh snapshot)."})
    static final class Watch implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE")
        String cache;

        @Option(names = "--prefix", paramLabel = "PREFIX", description = "only keys starting with PREFIX")
        String prefix;

        @Option(names = "--count", paramLabel = "N", description = "exit after N changes (after the snapshot)")
        Long count;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws InterruptedException {
            CacheRef ref = parse(cache);
            try (FelixClient c = client.connect(ref.tenant())) {
                CountDownLatch done = new CountDownLatch(count == null ? -1 : 1);
                long[] seen = {0};
                CacheMirror mirror = c.mirror(ref, prefix);
                mirror.snapshot().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e ->
                        System.out.println("snapshot\tput\t" + e.getKey() + "\t"
                                + new String(e.getValue(), StandardCharsets.UTF_8)));
                System.out.flush();
                mirror.addListener((key, value, offset) -> {
                    System.out.println(offset + "\t" + (value == null ? "delete" : "put") + "\t" + key
                            + (value == null ? "" : "\t" + new String(value, StandardCharsets.UTF_8)));
                    System.out.flush();
                    if (count != null && ++seen[0] >= count) {
                        done.countDown();
                    }
                });
                while (done.getCount() > 0 || count == null) {
                    if (mirror.endCause() != null) {
                        throw mirror.endCause();
                    }
                    if (done.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        break;
                    }
                }
                mirror.close();
            }
            return 0;
        }
    }

    static void print(Message.CacheInfo info) {
        System.out.println("cache      " + info.tenantId() + "/" + info.namespace() + "/" + info.cache());
        System.out.println("backing    " + info.backing() + (info.fsync() != null ? " (fsync " + info.fsync() + ")" : ""));
        System.out.println("ttl        " + (info.ttlMs() == null ? "none" : Duration.ofMillis(info.ttlMs())));
        System.out.println("capacity   " + Long.toUnsignedString(info.maxEntries()) + " entries");
        if (info.entries() != null) {
            System.out.println("entries    " + Long.toUnsignedString(info.entries()));
        }
        if (info.nextOffset() != null) {
            System.out.println("next       " + Long.toUnsignedString(info.nextOffset()));
        }
    }
}
