package dev.felix.core.cache;

/**
 * The entries of one loaded cache and the policy that changes them: puts, deletes, TTL expiry and LRU
 * eviction. Every change it decides on gets the next offset and is handed to its {@link Staging} (the cache's
 * writer, which forms the log batch); a change reaches readers only when {@link #publish} says it committed.
 *
 * <p><b>Threads.</b> Writer-confined, except {@link #read} (any thread, lock-free: a look-up in the published
 * view). The store is replaced wholesale when a cache reloads after a storage failure.
 *
 * <h2>TTL and capacity</h2>
 * Expiry times are absolute (epoch ms of the cache's clock) so they survive a restart. An expired entry reads
 * as absent at once (lazy expiry); the writer removes it when asked ({@link #expireIfDue}), when a sweep runs
 * ({@link #expireDue}), before evicting anything, and when a delete finds the key expired. Each removal is an
 * {@link Change.Op#EXPIRE} change. Beyond {@code max_entries} the least recently used entry (reads and writes
 * count as use) is evicted as an {@link Change.Op#EVICT} change; a write is never evicted by itself.
 */
final class CacheStore {

    /** Receives every change the store decides on, in offset order. */
    interface Staging {
        /** {@code change} was decided; {@code node} is the new entry for a put, null for a removal. */
        void staged(Change change, EntryTable.Node node);
    }

    /** Expired entries one pass removes before yielding. */
    static final int EXPIRE_PER_PASS = 1024;

    private final EntryTable table;
    private final CacheConfig config;
    private final CacheMetrics metrics;
    private final Staging staging;
    /** Accesses recorded by readers (shared by every store of the cache). */
    private final ReadBuffer reads;
    /** Offset the next decided change gets. */
    private long next;

    /**
     * @param table the entries loaded from disk (a log cache), or null to start empty
     * @param next  offset of the next change
     */
    CacheStore(CacheConfig config, CacheMetrics metrics, ReadBuffer reads, Staging staging, long next,
            EntryTable table) {
        this.table = table != null ? table : new EntryTable(true);
        this.config = config;
        this.reads = reads;
        this.metrics = metrics;
        this.staging = staging;
        this.next = next;
    }

    /** The table, for loading (before the store is shared) and for snapshots (writer). */
    EntryTable table() {
        return table;
    }

    /** Offset the next change gets. */
    long next() {
        return next;
    }

    /** The committed node of {@code key}, or null; any thread. */
    EntryTable.Node read(String key) {
        return table.view.get(key);
    }

    /** Committed entries, for info; any thread (approximate while changes commit). */
    int visibleSize() {
        return table.view.size();
    }

    /** Puts {@code value} under {@code key} at {@code now}; returns the change's offset. */
    long put(String key, byte[] value, long ttlMillis, long now) {
        long expiresAt = ttlMillis == 0 ? CacheEntry.NEVER : saturatedAdd(now, ttlMillis);
        EntryTable.Node node = table.newNode(key, value, expiresAt);
        long offset = next++;
        table.stagePut(node, offset);
        staging.staged(new Change(offset, node.key, Change.Op.PUT, node.value, node.expiresAt), node);
        metrics.puts.increment();
        enforceCapacity(now, node);
        return offset;
    }

    /**
     * Deletes {@code key}; returns the change's offset, or {@link Cache#NO_CHANGE} when it was absent or had
     * expired (an expired key's removal is still recorded, as an EXPIRE change).
     */
    long delete(String key, long now) {
        EntryTable.Node old = table.lookup(key);
        if (old == null) {
            return Cache.NO_CHANGE;
        }
        if (old.expiredAt(now)) {
            remove(old, Change.Op.EXPIRE);
            metrics.expirations.increment();
            return Cache.NO_CHANGE;
        }
        long offset = remove(old, Change.Op.DELETE);
        metrics.deletes.increment();
        return offset;
    }

    /** Removes up to {@code limit} expired entries, earliest first; returns how many. */
    int expireDue(long now, int limit) {
        int n = 0;
        EntryTable.Node first;
        while (n < limit && (first = table.firstToExpire()) != null && first.expiresAt <= now) {
            remove(first, Change.Op.EXPIRE);
            metrics.expirations.increment();
            n++;
        }
        return n;
    }

    /** A reader found {@code n} expired: removes it if it is still the entry of its key. */
    void expireIfDue(EntryTable.Node n, long now) {
        if (table.lookup(n.key) == n && n.expiredAt(now)) {
            remove(n, Change.Op.EXPIRE);
            metrics.expirations.increment();
        }
    }

    /** Applies accesses recorded by readers to the LRU order. */
    void touchRecorded() {
        reads.drain(n -> {
            // Accesses may name nodes already replaced, removed, or from before a reload: only live ones move.
            if (table.lookup(n.key) == n) {
                table.touch(n);
            }
        });
    }

    /** Earliest expiry among entries, or {@link CacheEntry#NEVER}. */
    long nextExpiry() {
        EntryTable.Node first = table.firstToExpire();
        return first == null ? CacheEntry.NEVER : first.expiresAt;
    }

    /** A committed change reaches readers (in offset order). */
    void publish(Change c, EntryTable.Node node) {
        table.publish(c.key(), node, c.offset());
    }

    /** Evicts least recently used entries while over capacity; {@code written} (just put) is never chosen. */
    private void enforceCapacity(long now, EntryTable.Node written) {
        int max = config.maxEntries();
        if (table.size() <= max) {
            return;
        }
        expireDue(now, EXPIRE_PER_PASS); // expired entries go before anything live is evicted
        if (table.size() <= max) {
            return;
        }
        touchRecorded();
        table.touch(written); // the write is its most recent use, whatever reads were recorded meanwhile
        while (table.size() > max) {
            remove(table.eldest(), Change.Op.EVICT);
            metrics.evictions.increment();
        }
    }

    private long remove(EntryTable.Node old, Change.Op op) {
        long offset = next++;
        table.stageRemove(old, offset);
        staging.staged(new Change(offset, old.key, op, null, CacheEntry.NEVER), null);
        return offset;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 || r >= CacheEntry.NEVER ? CacheEntry.NEVER - 1 : r;
    }
}
