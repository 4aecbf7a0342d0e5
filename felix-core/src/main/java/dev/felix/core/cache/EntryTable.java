package dev.felix.core.cache;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The entries of one cache: what readers see, what the writer decides on, in LRU and expiry order.
 *
 * <h2>Two states, one writer</h2>
 * <ul>
 *   <li>The <em>view</em> ({@link #view}, a {@link ConcurrentHashMap}) is the state at the cache's visible
 *       offset: exactly the changes below it. Readers on any thread look keys up in it without a lock; only
 *       the writer mutates it, and only in offset order, so on the writer thread it is a consistent
 *       snapshot source.</li>
 *   <li>The <em>authoritative</em> state is the view plus the changes the writer staged but has not made
 *       visible yet (a log cache stages a batch, appends it, and publishes it after the append, or after
 *       the fsync under {@code on_commit}). Those changes live in the small {@link #pending} overlay; a
 *       memory cache publishes every change at once and never uses it ({@code deferred = false}).</li>
 * </ul>
 * The LRU list, the expiry index and {@link #size()} follow the authoritative state: eviction and expiry
 * decisions are the writer's, and are themselves changes.
 *
 * <h2>Concurrency</h2>
 * Writer-confined except {@link #view} (read by any thread) and the immutable fields of {@link Node}.
 */
final class EntryTable {

    /**
     * One value of one key. Immutable to everyone but the writer, which alone touches the LRU links and
     * the index flags; any thread may read {@code key}, {@code value} and {@code expiresAt}.
     */
    static final class Node {
        final String key;
        /** Shared with readers and watchers: never modified. */
        final byte[] value;
        /** Epoch ms, or {@link CacheEntry#NEVER}. */
        final long expiresAt;
        /** Unique per table; orders the expiry index among equal expiry times. */
        final long seq;
        /** Set by a reader that found the entry expired, so it asks the writer only once. */
        volatile boolean expireRequested;
        // Writer-only.
        Node prev;
        Node next;
        boolean linked;

        Node(String key, byte[] value, long expiresAt, long seq) {
            this.key = key;
            this.value = value;
            this.expiresAt = expiresAt;
            this.seq = seq;
        }

        boolean expiredAt(long nowMillis) {
            return expiresAt != CacheEntry.NEVER && expiresAt <= nowMillis;
        }

        long weight() {
            return value.length + 2L * key.length();
        }

        CacheEntry entry() {
            return new CacheEntry(key, value, expiresAt);
        }
    }

    /** A staged change of one key not yet in the view: the new node, or null for a removal. */
    private record Staged(Node node, long offset) {
    }

    /** Published state; see the class comment. */
    final ConcurrentHashMap<String, Node> view = new ConcurrentHashMap<>();
    private final HashMap<String, Staged> pending = new HashMap<>();
    private final boolean deferred;
    private final TreeSet<Node> byExpiry = new TreeSet<>((a, b) -> a.expiresAt != b.expiresAt
            ? Long.compare(a.expiresAt, b.expiresAt) : Long.compare(a.seq, b.seq));
    /** Least recently used end of the LRU list. */
    private Node head;
    /** Most recently used end. */
    private Node tail;
    private int size;
    private long seq;

    /**
     * @param deferred whether staged changes wait for {@link #publish} before readers see them (log caches)
     */
    EntryTable(boolean deferred) {
        this.deferred = deferred;
    }

    /** A new node with the next sequence number. */
    Node newNode(String key, byte[] value, long expiresAt) {
        return new Node(key, value, expiresAt, seq++);
    }

    /** The authoritative node of {@code key} (staged changes included), or null. */
    Node lookup(String key) {
        if (deferred) {
            Staged s = pending.get(key);
            if (s != null) {
                return s.node;
            }
        }
        return view.get(key);
    }

    /** Live entries in the authoritative state (expired ones not yet removed included). */
    int size() {
        return size;
    }

    /** Stages a put of {@code node} by the change at {@code offset}; it becomes the most recently used. */
    void stagePut(Node node, long offset) {
        Node old = lookup(node.key);
        if (old != null) {
            forget(old);
        } else {
            size++;
        }
        linkLast(node);
        if (node.expiresAt != CacheEntry.NEVER) {
            byExpiry.add(node);
        }
        if (deferred) {
            pending.put(node.key, new Staged(node, offset));
        } else {
            view.put(node.key, node);
        }
    }

    /** Stages the removal of {@code old} (the authoritative node of its key) by the change at {@code offset}. */
    void stageRemove(Node old, long offset) {
        forget(old);
        size--;
        if (deferred) {
            pending.put(old.key, new Staged(null, offset));
        } else {
            view.remove(old.key, old);
        }
    }

    /**
     * Makes a staged change visible, in offset order: {@code node} for a put, null for a removal.
     * A no-op for a table that does not defer.
     */
    void publish(String key, Node node, long offset) {
        if (!deferred) {
            return;
        }
        if (node != null) {
            view.put(key, node);
        } else {
            view.remove(key);
        }
        Staged s = pending.get(key);
        if (s != null && s.offset == offset) {
            pending.remove(key); // the view caught up with the authoritative state of this key
        }
    }

    /** Loading only (no readers yet): applies a put directly to both states. */
    void loadPut(Node node) {
        Node old = view.put(node.key, node);
        if (old != null) {
            forget(old);
        } else {
            size++;
        }
        linkLast(node);
        if (node.expiresAt != CacheEntry.NEVER) {
            byExpiry.add(node);
        }
    }

    /** Loading only: applies a removal directly to both states. */
    void loadRemove(String key) {
        Node old = view.remove(key);
        if (old != null) {
            forget(old);
            size--;
        }
    }

    /** A read used {@code node}: it becomes the most recently used if it is still live. */
    void touch(Node node) {
        if (!node.linked || node == tail) {
            return;
        }
        unlink(node);
        linkLast(node);
    }

    /** The least recently used live node, or null. */
    Node eldest() {
        return head;
    }

    /** The live node that expires first, or null when no entry has a TTL. */
    Node firstToExpire() {
        return byExpiry.isEmpty() ? null : byExpiry.first();
    }

    /**
     * The view's nodes (the state at the visible offset) from least to most recently used. Writer thread
     * only; O(entries). Used for snapshot files, so a restart keeps the LRU order.
     */
    List<Node> viewInLruOrder() {
        List<Node> out = new ArrayList<>(view.size());
        for (Node n = head; n != null; n = n.next) {
            if (view.get(n.key) == n) {
                out.add(n);
            }
        }
        if (deferred) {
            // View nodes the staged state already replaced or removed are no longer in the LRU list.
            for (String key : pending.keySet()) {
                Node v = view.get(key);
                if (v != null && !v.linked) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /** The view's nodes whose key starts with {@code prefix} (all for null), in no particular order. */
    Node[] viewMatching(String prefix) {
        List<Node> out = new ArrayList<>();
        for (Node n : view.values()) {
            if (prefix == null || n.key.startsWith(prefix)) {
                out.add(n);
            }
        }
        return out.toArray(new Node[0]);
    }

    /** Staged changes not yet visible (for tests and assertions). */
    int pendingCount() {
        return pending.size();
    }

    private void forget(Node old) {
        unlink(old);
        if (old.expiresAt != CacheEntry.NEVER) {
            byExpiry.remove(old);
        }
    }

    private void linkLast(Node n) {
        n.prev = tail;
        n.next = null;
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
        n.linked = true;
    }

    private void unlink(Node n) {
        if (!n.linked) {
            return;
        }
        if (n.prev == null) {
            head = n.next;
        } else {
            n.prev.next = n.next;
        }
        if (n.next == null) {
            tail = n.prev;
        } else {
            n.next.prev = n.prev;
        }
        n.prev = null;
        n.next = null;
        n.linked = false;
    }
}
