package dev.felix.core.durable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Fixture;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.storage.SegmentedLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster member keeps its follower copy of a stream shard or log cache in the directory the unit's own log uses.
 * When the unit is deleted through this node, the broker removes that directory: it first tells the gate factory
 * ({@link GateFactory#releaseCopy}) and removes the directory only once the copy has let go, so no writer is open
 * in a directory as it goes (CI logs showed a follower copy's writer history removed beneath it).
 */
@Timeout(60)
class DeletedLogCopyTest {

    private static final StreamName NAME = new StreamName("t", "ns", "gone");
    private static final CacheName CACHE = new CacheName("t", "ns", "sessions");

    @TempDir
    Path dir;

    /** Local gates whose copies let go only when the test says so. */
    static final class HeldCopies implements GateFactory {
        final List<LogRef> released = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> letGo = new CompletableFuture<>();

        @Override
        public Opened open(LogRef ref, SegmentedLog log, boolean onCommit) throws FelixException {
            return GateFactory.LOCAL.open(ref, log, onCommit);
        }

        @Override
        public CompletableFuture<Void> releaseCopy(LogRef ref) {
            released.add(ref);
            return letGo;
        }
    }

    @Test
    void aDeletedStreamsShardDirectoriesGoOnlyOnceTheirOtherCopiesLetGo() throws Exception {
        HeldCopies gates = new HeldCopies();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            var stream = broker.createStream(NAME, new StreamConfig(2, true, StreamConfig.Fsync.NONE, 0, null));
            long uid = stream.uid();
            Fixture.publish(stream.shard(0), "a");
            Fixture.publish(stream.shard(1), "b");
            List<Path> dirs = List.of(broker.logDirectory(NAME, 0, uid), broker.logDirectory(NAME, 1, uid));
            assertThat(dirs).allMatch(Files::isDirectory);

            broker.deleteStream(NAME, true).get(10, TimeUnit.SECONDS);

            Await.until("both shards' copies were asked to let go", () -> gates.released.size() == 2);
            assertThat(gates.released).containsExactlyInAnyOrder(new LogRef(LogRef.Kind.STREAM, NAME.toString(), uid, 0),
                    new LogRef(LogRef.Kind.STREAM, NAME.toString(), uid, 1));
            assertThat(dirs).as("kept while a copy may still be open there").allMatch(Files::isDirectory);

            gates.letGo.complete(null);
            Await.until("the directories are removed", () -> dirs.stream().noneMatch(Files::exists));
        }
    }

    @Test
    void aDroppedLogCachesDirectoryGoesOnlyOnceItsOtherCopyLetGo() throws Exception {
        HeldCopies gates = new HeldCopies();
        try (Broker broker = Fixture.durableBroker(dir, gates)) {
            broker.caches().create(CACHE, CacheConfig.log(StreamConfig.Fsync.NONE)).put("k", Fixture.bytes("v"), null)
                    .get(10, TimeUnit.SECONDS);
            long uid = broker.metadata().cache(CACHE).orElseThrow().uid();
            Path cacheDir = broker.caches().logDirectory(CACHE, uid);
            assertThat(cacheDir).isDirectory();

            broker.caches().drop(CACHE, true).get(10, TimeUnit.SECONDS);

            Await.until("the cache's copy was asked to let go", () -> gates.released.size() == 1);
            assertThat(gates.released).containsExactly(new LogRef(LogRef.Kind.CACHE, CACHE.toString(), uid, 0));
            assertThat(cacheDir).as("kept while a copy may still be open there").isDirectory();

            gates.letGo.complete(null);
            Await.until("the directory is removed", () -> !Files.exists(cacheDir));
        }
    }
}
