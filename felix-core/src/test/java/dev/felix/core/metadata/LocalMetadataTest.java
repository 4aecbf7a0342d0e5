package dev.felix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Single-node metadata: registration rules, uids, durability across reopen, delete, legacy data dirs. */
class LocalMetadataTest {

    @TempDir
    Path dir;

    private static final StreamName S = StreamName.parse("t/ns/s");
    private static final CacheName C = CacheName.parse("t/ns/c");

    @Test
    void createStream_needsARegisteredTenant_andRegistersItsNamespace() throws Exception {
        LocalMetadata m = LocalMetadata.at(dir);
        assertThat(code(m.createStream(S, StreamConfig.ephemeral()))).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(m.namespaceExists("t", "ns")).isFalse();

        m.createTenant("t").join();
        StreamRecord r = m.createStream(S, StreamConfig.ephemeral(2)).join();

        assertThat(r.uid()).isNotZero();
        assertThat(m.namespaceExists("t", "ns")).isTrue();
        assertThat(m.stream(S)).contains(r);
    }

    @Test
    void definitions_surviveReopen_withTheirUids() throws Exception {
        LocalMetadata m = LocalMetadata.at(dir);
        m.createTenant("t").join();
        StreamConfig durable = new StreamConfig(3, true, StreamConfig.Fsync.ON_COMMIT, 1 << 20, Duration.ofHours(7));
        CacheConfig cache = CacheConfig.log(StreamConfig.Fsync.ON_COMMIT).withDefaultTtl(Duration.ofSeconds(90))
                .withMaxEntries(12).withChangeRing(7, 700).withWatcherQueue(new QueueLimits(3, 300))
                .withWriterQueue(new QueueLimits(5, 500)).withMaxValueBytes(1000).withSnapshotEveryChanges(10)
                .withSegmentBytes(8192);
        StreamRecord s = m.createStream(S, durable).join();
        CacheRecord c = m.createCache(C, cache).join();

        LocalMetadata reopened = LocalMetadata.at(dir);

        assertThat(reopened.tenants()).containsExactly("t");
        assertThat(reopened.stream(S)).contains(s);
        assertThat(reopened.cache(C)).contains(c);
        assertThat(reopened.streams("t", null)).containsExactly(s);
        assertThat(reopened.caches("t", "ns")).containsExactly(c);
        assertThat(reopened.caches("t", "other")).isEmpty();
    }

    @Test
    void create_isIdempotent_butRefusesAnotherDefinition() throws Exception {
        LocalMetadata m = LocalMetadata.at(dir);
        m.createTenant("t").join();
        StreamRecord first = m.createStream(S, StreamConfig.ephemeral()).join();

        assertThat(m.createStream(S, StreamConfig.ephemeral()).join()).isEqualTo(first);
        assertThat(code(m.createStream(S, StreamConfig.ephemeral(2)))).isEqualTo(ErrorCode.ALREADY_EXISTS);
        m.createCache(C, CacheConfig.memory()).join();
        assertThat(code(m.createCache(C, CacheConfig.memory().withMaxEntries(3)))).isEqualTo(ErrorCode.ALREADY_EXISTS);
    }

    @Test
    void delete_removesTheDefinitionDurably_andARecreateGetsANewUid() throws Exception {
        LocalMetadata m = LocalMetadata.at(dir);
        m.createTenant("t").join();
        StreamRecord old = m.createStream(S, StreamConfig.ephemeral()).join();
        CacheRecord oldCache = m.createCache(C, CacheConfig.memory()).join();

        assertThat(m.deleteStream(S).join()).isEqualTo(old);
        assertThat(m.deleteCache(C).join()).isEqualTo(oldCache);

        LocalMetadata reopened = LocalMetadata.at(dir);
        assertThat(reopened.stream(S)).isEmpty();
        assertThat(reopened.cache(C)).isEmpty();
        assertThat(code(reopened.deleteStream(S))).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(code(reopened.deleteCache(C))).isEqualTo(ErrorCode.NOT_FOUND);
        StreamRecord again = reopened.createStream(S, StreamConfig.ephemeral()).join();
        assertThat(again.uid()).isNotEqualTo(old.uid());
    }

    @Test
    void aDataDirectoryFromBeforeRegistration_isAdopted_andItsStreamsKeepUidZero() throws Exception {
        // What an earlier version wrote: a stream definition without uid, and no tenant file.
        Path file = dir.resolve("streams/t/ns/s.stream");
        Files.createDirectories(file.getParent());
        Properties p = new Properties();
        p.setProperty("shards", "1");
        p.setProperty("durable", "true");
        p.setProperty("fsync", "on_commit");
        try (var out = Files.newBufferedWriter(file)) {
            p.store(out, null);
        }
        LocalMetadata m = LocalMetadata.at(dir);

        assertThat(m.tenantExists("t")).isTrue();
        assertThat(m.namespaceExists("t", "ns")).isTrue();
        assertThat(Files.exists(dir.resolve("tenants/t.tenant"))).as("registered now").isTrue();
        assertThat(m.stream(S).orElseThrow().uid()).as("legacy log directory").isZero();
        assertThat(m.tenantExists("other")).isFalse();
    }

    @Test
    void anInvalidDefinition_isCorruptionNamingTheFile() throws Exception {
        Path file = dir.resolve("streams/t/ns/s.stream");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "shards=lots\n");
        LocalMetadata m = LocalMetadata.at(dir);

        assertThatThrownBy(() -> m.stream(S)).isInstanceOfSatisfying(FelixException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CORRUPTION);
            assertThat(e.getMessage()).contains(file.toString());
        });
    }

    @Test
    void inMemory_followsTheSameRules() throws Exception {
        LocalMetadata m = LocalMetadata.inMemory();
        assertThat(code(m.createCache(C, CacheConfig.memory()))).isEqualTo(ErrorCode.NOT_FOUND);
        m.createTenant("t").join();
        CacheRecord c = m.createCache(C, CacheConfig.memory()).join();
        assertThat(m.caches("t", null)).containsExactly(c);
        assertThat(code(m.createTenant("bad/name"))).isEqualTo(ErrorCode.BAD_REQUEST);
    }

    private static ErrorCode code(CompletableFuture<?> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            return ((FelixException) e.getCause()).code();
        }
        throw new AssertionError("expected a failure");
    }
}
