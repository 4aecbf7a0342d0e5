package dev.felix.core.metadata;

import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import dev.felix.core.cache.CacheConfig;
import java.time.Duration;
import java.util.Properties;

/**
 * Stream and cache definitions as properties files. Keys are stable: files written by earlier versions
 * decode (a missing {@code uid} is 0, the legacy log directory; cache settings missing from an older file
 * take today's defaults).
 */
final class DefinitionCodecs {
    private DefinitionCodecs() {
    }

    static final String UID = "uid";

    static Properties encode(StreamConfig c, long uid) {
        Properties p = new Properties();
        p.setProperty(UID, Long.toHexString(uid));
        p.setProperty("shards", Integer.toString(c.shards()));
        p.setProperty("durable", Boolean.toString(c.durable()));
        p.setProperty("fsync", c.fsync().wireName());
        p.setProperty("retention_bytes", Long.toString(c.retentionBytes()));
        if (c.retentionAge() != null) {
            p.setProperty("retention_age_ms", Long.toString(c.retentionAge().toMillis()));
        }
        p.setProperty("consistency", c.consistency().wireName());
        p.setProperty("replicas", Integer.toString(c.replicas()));
        if (c.noReplay()) {
            p.setProperty("no_replay", "true");
        }
        return p;
    }

    static StreamConfig decodeStream(Properties p) {
        String age = p.getProperty("retention_age_ms");
        return StreamConfig.builder()
                .shards(Integer.parseInt(required(p, "shards")))
                .durable(Boolean.parseBoolean(required(p, "durable")))
                .fsync(StreamConfig.Fsync.parse(required(p, "fsync")))
                .retentionBytes(Long.parseLong(p.getProperty("retention_bytes", "0")))
                .retentionAge(age == null ? null : Duration.ofMillis(Long.parseLong(age)))
                .consistency(dev.felix.core.Consistency.parse(p.getProperty("consistency", "leader")))
                .replicas(Integer.parseInt(p.getProperty("replicas", "0")))
                .noReplay(Boolean.parseBoolean(p.getProperty("no_replay", "false")))
                .build();
    }

    static Properties encode(CacheConfig c, long uid) {
        Properties p = new Properties();
        p.setProperty(UID, Long.toHexString(uid));
        p.setProperty("backing", c.backing().wireName());
        if (c.defaultTtl() != null) {
            p.setProperty("default_ttl_ms", Long.toString(c.defaultTtl().toMillis()));
        }
        p.setProperty("max_entries", Integer.toString(c.maxEntries()));
        p.setProperty("change_ring_events", Integer.toString(c.changeRingEvents()));
        p.setProperty("change_ring_bytes", Long.toString(c.changeRingBytes()));
        p.setProperty("watcher_queue_events", Integer.toString(c.watcherQueue().events()));
        p.setProperty("watcher_queue_bytes", Long.toString(c.watcherQueue().bytes()));
        p.setProperty("writer_queue_events", Integer.toString(c.writerQueue().events()));
        p.setProperty("writer_queue_bytes", Long.toString(c.writerQueue().bytes()));
        p.setProperty("max_value_bytes", Integer.toString(c.maxValueBytes()));
        p.setProperty("fsync", c.fsync().wireName());
        p.setProperty("snapshot_every_changes", Long.toString(c.snapshotEveryChanges()));
        p.setProperty("segment_bytes", Long.toString(c.segmentBytes()));
        p.setProperty("consistency", c.consistency().wireName());
        return p;
    }

    static CacheConfig decodeCache(Properties p) {
        CacheConfig d = CacheConfig.defaults();
        String ttl = p.getProperty("default_ttl_ms");
        return CacheConfig.builder()
                .backing(CacheConfig.Backing.parse(required(p, "backing")))
                .defaultTtl(ttl == null ? null : Duration.ofMillis(Long.parseLong(ttl)))
                .maxEntries(intOr(p, "max_entries", d.maxEntries()))
                .changeRingEvents(intOr(p, "change_ring_events", d.changeRingEvents()))
                .changeRingBytes(longOr(p, "change_ring_bytes", d.changeRingBytes()))
                .watcherQueue(new QueueLimits(intOr(p, "watcher_queue_events", d.watcherQueue().events()),
                        longOr(p, "watcher_queue_bytes", d.watcherQueue().bytes())))
                .writerQueue(new QueueLimits(intOr(p, "writer_queue_events", d.writerQueue().events()),
                        longOr(p, "writer_queue_bytes", d.writerQueue().bytes())))
                .maxValueBytes(intOr(p, "max_value_bytes", d.maxValueBytes()))
                .fsync(StreamConfig.Fsync.parse(p.getProperty("fsync", d.fsync().wireName())))
                .snapshotEveryChanges(longOr(p, "snapshot_every_changes", d.snapshotEveryChanges()))
                .segmentBytes(longOr(p, "segment_bytes", d.segmentBytes()))
                .consistency(dev.felix.core.Consistency.parse(p.getProperty("consistency", "leader")))
                .build();
    }

    static long uid(Properties p) {
        String v = p.getProperty(UID);
        return v == null ? 0 : Long.parseUnsignedLong(v, 16);
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing '" + key + "'");
        }
        return v;
    }

    private static int intOr(Properties p, String key, int dflt) {
        String v = p.getProperty(key);
        return v == null ? dflt : Integer.parseInt(v);
    }

    private static long longOr(Properties p, String key, long dflt) {
        String v = p.getProperty(key);
        return v == null ? dflt : Long.parseLong(v);
    }
}
