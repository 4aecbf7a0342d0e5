package dev.felix.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.testing.Await;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test-local mirror of a cache (or a key prefix), as the SDK's mirror will work: a snapshot then changes,
 * and when the watch ends, resume from its offset — or a fresh snapshot if that is no longer retained.
 * Checks the watch contract on every item: chunks of one snapshot share an offset and come first, change
 * offsets strictly increase (and are exactly contiguous for an unfiltered watch), keys match the prefix,
 * nothing follows an end marker.
 *
 * <p>One consumer thread at a time (the test's).
 */
final class Mirror {

    final Cache cache;
    final String prefix;
    /** Key → value (as text) once the snapshot is complete. */
    final Map<String, String> entries = new HashMap<>();
    /** Every change applied, by offset. */
    final TreeMap<Long, Change> changes = new TreeMap<>();
    final AtomicInteger readySignals = new AtomicInteger();
    int snapshots;
    /** Offset of the last complete snapshot; -1 if none. */
    long lastSnapshot = -1;
    int resumes;
    int tooOld;
    int ends;
    /** Next cache offset expected; -1 before the first snapshot. */
    long next = -1;
    long incarnation;
    CacheWatch watch;
    private boolean inSnapshot;
    private long snapshotOffset = -1;
    private Map<String, String> building;

    Mirror(Cache cache, String prefix) {
        this.cache = cache;
        this.prefix = prefix;
    }

    /** Starts with a snapshot. */
    Mirror start() {
        watch = Await.get(cache.watch(prefix, null, l()));
        incarnation = watch.incarnation();
        assertThat(watch.startsWithSnapshot()).isTrue();
        inSnapshot = true;
        building = new HashMap<>();
        snapshotOffset = -1;
        return this;
    }

    /** Follows a watch the test opened itself (a snapshot watch, or one resuming from an offset). */
    Mirror attach(CacheWatch w) {
        watch = w;
        incarnation = w.incarnation();
        if (w.startsWithSnapshot()) {
            inSnapshot = true;
            building = new HashMap<>();
            snapshotOffset = -1;
        } else {
            next = w.startOffset();
        }
        return this;
    }

    private WatchListener l() {
        return readySignals::incrementAndGet;
    }

    /** Polls up to {@code max} items (resuming after an end); returns how many were applied. */
    int poll(int max) {
        int n = 0;
        while (n < max) {
            WatchItem item = watch.poll();
            if (item == null) {
                return n;
            }
            apply(item);
            n++;
        }
        return n;
    }

    /** Polls until the mirror has applied everything below {@code offset} and its queue is empty. */
    void catchUp(long offset) {
        Await.until("mirror" + (prefix == null ? "" : "(" + prefix + ")") + " reaches offset " + offset, () -> {
            CacheWatch before = watch;
            long position = before.position(); // first: everything it covers below it is queued by now
            poll(Integer.MAX_VALUE);
            if (watch != before || inSnapshot || position < offset) {
                return false; // resumed meanwhile, or not there yet
            }
            next = Math.max(next, position);
            return true;
        });
    }

    void apply(WatchItem item) {
        if (item instanceof SnapshotChunk chunk) {
            assertThat(inSnapshot).as("snapshot chunk only at the start of a snapshot watch").isTrue();
            if (snapshotOffset == -1) {
                assertThat(chunk.offset()).as("a snapshot is never older than what the mirror had")
                        .isGreaterThanOrEqualTo(next);
                snapshotOffset = chunk.offset();
            }
            assertThat(chunk.offset()).as("every chunk of a snapshot has its offset").isEqualTo(snapshotOffset);
            for (CacheEntry e : chunk.entries()) {
                assertMatches(e.key());
                assertThat(building.put(e.key(), CacheFixture.text(e.value()))).as("key once per snapshot").isNull();
            }
            if (chunk.last()) {
                lastSnapshot = snapshotOffset;
                entries.clear();
                entries.putAll(building);
                building = null;
                inSnapshot = false;
                next = snapshotOffset;
                snapshots++;
            }
        } else if (item instanceof Change c) {
            assertThat(inSnapshot).as("no change before the snapshot is complete").isFalse();
            assertMatches(c.key());
            if (prefix == null) {
                assertThat(c.offset()).as("unfiltered watch: contiguous offsets").isEqualTo(next);
            } else {
                assertThat(c.offset()).as("offsets increase").isGreaterThanOrEqualTo(next);
            }
            if (c.op() == Change.Op.PUT) {
                entries.put(c.key(), CacheFixture.text(c.value()));
            } else {
                entries.remove(c.key());
            }
            changes.put(c.offset(), c);
            next = c.offset() + 1;
        } else {
            WatchEnded end = (WatchEnded) item;
            assertThat(watch.poll()).as("nothing after the end marker").isNull();
            assertThat(end.resumeFrom()).as("resume offset not behind what was applied").isGreaterThanOrEqualTo(next);
            if (prefix == null && !inSnapshot) {
                assertThat(end.resumeFrom()).as("unfiltered: resume exactly where the watch stopped").isEqualTo(next);
            }
            ends++;
            resume(end.resumeFrom());
        }
    }

    /** After an end: watch again from {@code from}, or from a fresh snapshot if it is gone. */
    void resume(long from) {
        if (inSnapshot) {
            start(); // the snapshot was cut short by the end marker: take it again
            return;
        }
        CompletableFuture<CacheWatch> f = cache.watch(prefix, from, incarnation, l());
        try {
            watch = f.get(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(watch.startOffset()).isEqualTo(from);
            next = from;
            resumes++;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof FelixException fe && fe.code() == ErrorCode.CURSOR_TOO_OLD) {
                assertThat(fe.error().offset()).as("cursor_too_old names the oldest retained offset")
                        .isGreaterThan(from);
                tooOld++;
                start();
                return;
            }
            throw new AssertionError("resume from " + from + " failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("resume from " + from + " did not complete", e);
        }
    }

    /** The offsets of applied changes in {@code [from, to)}. */
    List<Long> offsets(long from, long to) {
        return new ArrayList<>(changes.subMap(from, to).keySet());
    }

    private void assertMatches(String key) {
        if (prefix != null) {
            assertThat(key).as("key within the watched prefix").startsWith(prefix);
        }
    }
}
