package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.writer.HistoryRead;
import dev.felix.storage.LogRecord;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watches of one cache and how each is fed: a snapshot then every committed change live, or by offset
 * from history (the change ring, else the log) while it is behind.
 *
 * <p><b>Threads.</b> Confined to the cache's writer; queue-space signals arrive as writer tasks. Only the
 * {@link WatcherQueue}s are shared (with each consumer). A watcher whose queue is full while live is
 * <em>ended</em> with {@link WatchEnded#resumeFrom()} = the first change it did not get: the writer never
 * blocks on a watcher and never drops a change silently.
 */
final class WatchFanout {

    private static final Logger LOG = LoggerFactory.getLogger(WatchFanout.class);

    /** Changes a replaying watcher is given (or skips) per writer turn before yielding. */
    static final int REPLAY_PER_RUN = 4096;
    /** Records one log read may return for a replaying watcher. */
    static final int LOG_READ_MAX_RECORDS = 4096;
    /** Payload bytes one log read may return for a replaying watcher. */
    static final long LOG_READ_MAX_BYTES = 4L << 20;

    private final Cache cache;
    private final String label;
    private final CacheMetrics metrics;
    private final ArrayList<Watcher> watchers = new ArrayList<>();
    private volatile int publishedWatchers;
    /**
     * The snapshot the last new watch started with, kept for the next watches until the cache changes (then it
     * can no longer be theirs). Softly: its chunks and their encodings may be as large as the cache, and
     * under memory pressure the collector may take it back; a later watch then takes its own snapshot. The
     * watches reading it hold it strongly. Writer only.
     */
    private SoftReference<SharedSnapshot> lastSnapshot;

    WatchFanout(Cache cache, String label, CacheMetrics metrics) {
        this.cache = cache;
        this.label = label;
        this.metrics = metrics;
    }

    int count() {
        return publishedWatchers;
    }

    /** Starts {@code w}: a snapshot ({@code from == null}) or a resume from {@code from}. */
    void register(Cache.State s, Watcher w, Long from, Long expectedIncarnation, long incarnation,
            CompletableFuture<CacheWatch> result) {
        long visible = s.visible();
        if (from == null) {
            w.next = visible;
            w.mode = Watcher.Mode.LIVE;
            boolean wake = w.queue.addSnapshot(snapshot(s, visible, w.prefix));
            attach(w);
            result.complete(new CacheWatch(cache, w, visible, true, incarnation));
            if (wake) {
                wake(w);
            }
            return;
        }
        long oldest = cache.oldest(s);
        if (expectedIncarnation != null && expectedIncarnation != incarnation) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_TOO_OLD, "the change history of cache "
                    + label + " restarted (incarnation " + incarnation + ", the offset is from " + expectedIncarnation
                    + "); take a fresh snapshot", oldest).toException());
            return;
        }
        if (from > visible) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_IN_FUTURE, "offset " + from
                    + " is past the tail of cache " + label + "; the next offset is " + visible, visible)
                    .toException());
            return;
        }
        if (from < oldest) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_TOO_OLD, "offset " + from + " of cache "
                    + label + " is no longer retained; the oldest is " + oldest + ": take a fresh snapshot",
                    oldest).toException());
            return;
        }
        w.next = from;
        w.mode = from == visible ? Watcher.Mode.LIVE : Watcher.Mode.REPLAY;
        attach(w);
        result.complete(new CacheWatch(cache, w, from, false, incarnation));
        if (w.mode == Watcher.Mode.REPLAY) {
            pump(s, w);
        }
    }

    /**
     * The snapshot a new watch of {@code prefix} starts with: the last one taken, while the cache has not changed
     * since, else a new one. Many watches starting together (mirrors reconnecting) share
     * one snapshot and its chunks.
     */
    private SharedSnapshot snapshot(Cache.State s, long visible, String prefix) {
        SharedSnapshot last = lastSnapshot == null ? null : lastSnapshot.get();
        if (last != null && last.isFor(s, visible, prefix)) {
            return last;
        }
        SharedSnapshot fresh = new SharedSnapshot(s, visible, prefix, s.store.table().viewMatching(prefix));
        lastSnapshot = new SoftReference<>(fresh);
        return fresh;
    }

    /** Offers a newly committed change to every live watcher. */
    void fanout(Change c, QueueLimits defaultLimits) {
        lastSnapshot = null; // no later watch can start at it
        for (int i = 0; i < watchers.size(); i++) {
            Watcher w = watchers.get(i);
            if (w.mode != Watcher.Mode.LIVE) {
                continue;
            }
            if (!w.matches(c.key())) {
                w.next = c.offset() + 1;
                continue;
            }
            WatcherQueue.Offer offer = w.queue.offer(c, false);
            if (offer == WatcherQueue.Offer.FULL) {
                metrics.watchOverflows.increment();
                end(w, new WatchEnded(c.offset(), FelixError.of(ErrorCode.OVERLOADED, "the watch fell behind its"
                        + " queue (" + defaultLimits.events() + " changes / " + defaultLimits.bytes()
                        + " bytes); resume from offset " + c.offset())));
                i--; // end() removed it
                continue;
            }
            w.next = c.offset() + 1;
            metrics.watchDelivered.increment();
            if (offer == WatcherQueue.Offer.ADDED_WAKE || offer == WatcherQueue.Offer.ADDED_HALF && holdingBack(w)) {
                wake(w);
            }
        }
    }

    /** The watcher's queue drained to half: a replaying watcher is fed again. */
    void onSpace(Cache.State s, Watcher w) {
        if (s != null && !w.closed && w.mode == Watcher.Mode.REPLAY && !w.pumpQueued) {
            pump(s, w);
        }
    }

    /**
     * Feeds a replaying watcher by offset — from the ring, else (log cache) from the log — until its queue is
     * full (it signals when it has room) or it reaches the committed tail, where it turns live. Yields after
     * {@value #REPLAY_PER_RUN} changes so a long replay does not hold up the cache.
     */
    void pump(Cache.State s, Watcher w) {
        w.pumpQueued = false;
        if (w.closed || s.dead) {
            return;
        }
        int budget = REPLAY_PER_RUN;
        while (true) {
            long visible = s.visible();
            if (w.next >= visible) {
                w.mode = Watcher.Mode.LIVE;
                return;
            }
            if (budget <= 0) {
                w.pumpQueued = true;
                cache.post(() -> pump(s, w));
                return;
            }
            Change c = s.ring.get(w.next);
            if (c != null) {
                budget--;
                if (!replayOne(w, c)) {
                    return;
                }
                continue;
            }
            if (!cache.hasLog()) {
                long oldest = cache.oldest(s);
                end(w, new WatchEnded(w.next, new FelixError(ErrorCode.CURSOR_TOO_OLD, "changes of cache " + label
                        + " from offset " + w.next + " were dropped from memory before this watch read them (oldest"
                        + " now " + oldest + "); take a fresh snapshot", oldest)));
                return;
            }
            List<Change> got = readLog(s, w, visible);
            if (got == null) {
                return; // the watch was ended
            }
            for (Change lc : got) {
                budget--;
                if (!replayOne(w, lc)) {
                    return;
                }
            }
        }
    }

    /** Gives (or skips) one change to a replaying watcher; false when its queue is full. */
    private boolean replayOne(Watcher w, Change c) {
        if (!w.matches(c.key())) {
            w.next = c.offset() + 1;
            return true;
        }
        WatcherQueue.Offer offer = w.queue.offer(c, true);
        if (offer == WatcherQueue.Offer.FULL) {
            return false;
        }
        w.next = c.offset() + 1;
        metrics.watchDelivered.increment();
        if (offer == WatcherQueue.Offer.ADDED_WAKE || offer == WatcherQueue.Offer.ADDED_HALF && holdingBack(w)) {
            wake(w);
        }
        return true;
    }

    /** Reads the next changes for {@code w} from the log, never past {@code visible}; null if it ended. */
    private List<Change> readLog(Cache.State s, Watcher w, long visible) {
        int max = LOG_READ_MAX_RECORDS;
        if (w.prefix == null) {
            max = (int) Math.max(1, Math.min(max, w.queue.room()[0])); // unfiltered: read only what fits
        }
        HistoryRead read = cache.readHistory(w.next, visible, max, LOG_READ_MAX_BYTES);
        if (read instanceof HistoryRead.Failed failed) {
            LOG.error("{}; ending that watch", failed.error().message());
            end(w, new WatchEnded(w.next, failed.error()));
            return null;
        }
        if (read instanceof HistoryRead.Missing missing) {
            long oldest = cache.oldest(s);
            String why = missing.reason() == HistoryRead.Reason.CORRUPTION
                    ? " are damaged on disk (offsets " + missing.from() + ".." + missing.to() + ")"
                    : " were compacted away before this watch read them (oldest now " + oldest + ")";
            // Either way the cache itself is whole in memory: a fresh snapshot makes the watcher exact again.
            end(w, new WatchEnded(w.next, new FelixError(ErrorCode.CURSOR_TOO_OLD, "changes of cache " + label
                    + " from offset " + w.next + why + "; take a fresh snapshot", oldest)));
            return null;
        }
        List<LogRecord> records = ((HistoryRead.Records) read).records();
        List<Change> out = new ArrayList<>(records.size());
        for (LogRecord rec : records) {
            try {
                out.add(ChangeCodec.decode(rec.offset(), rec.payload()));
            } catch (IllegalArgumentException e) {
                FelixError error = FelixError.of(ErrorCode.CORRUPTION, "cache " + label + ": " + e.getMessage());
                LOG.error("{}; ending that watch", error.message());
                end(w, new WatchEnded(w.next, error));
                return null;
            }
        }
        return out;
    }

    /** Stops a watch its consumer closed; queued items are discarded. */
    void remove(Watcher w) {
        detach(w);
        w.queue.clear();
    }

    /** Ends one watch: what is queued stays pollable, then the end marker. */
    void end(Watcher w, WatchEnded marker) {
        detach(w);
        if (w.queue.end(marker)) {
            wake(w);
        }
    }

    void endAll(FelixError reason) {
        for (Watcher w : List.copyOf(watchers)) {
            end(w, new WatchEnded(w.next, reason));
        }
    }

    private void attach(Watcher w) {
        watchers.add(w);
        publishedWatchers = watchers.size();
    }

    private void detach(Watcher w) {
        w.closed = true;
        if (watchers.remove(w)) {
            publishedWatchers = watchers.size();
        }
    }

    /**
     * Whether a watcher whose queue just filled to half holds its changes back and so must be woken again; one
     * that drains whenever woken already has a drain on its way and is not woken twice.
     */
    private boolean holdingBack(Watcher w) {
        try {
            return w.listener.holdingBack();
        } catch (RuntimeException e) {
            LOG.warn("watch listener of cache {} threw; ignored: {}", label, e.toString());
            return false;
        }
    }

    private void wake(Watcher w) {
        try {
            w.listener.onReady();
        } catch (RuntimeException e) {
            LOG.warn("watch listener of cache {} threw; ignored: {}", label, e.toString());
        }
    }
}
