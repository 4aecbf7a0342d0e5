package dev.felix.core.cache;

/**
 * A moment's view of a cache's offsets and size.
 *
 * @param loaded       whether the cache's state is in memory (a log cache loads on first use)
 * @param oldestOffset oldest change offset a watch may still resume from (-1 when not loaded)
 * @param nextOffset   offset the next visible change gets: every change below it is visible to reads and
 *                     watches (-1 when not loaded)
 * @param entries      entries held, expired ones not yet removed included (-1 when not loaded)
 * @param incarnation  changes whenever the cache's change history restarted (memory cache re-created, log
 *                     cache reopened after an unclean stop under a lossy fsync policy); offsets of another
 *                     incarnation mean nothing here
 * @param watchers     active watches
 */
public record CacheInfo(boolean loaded, long oldestOffset, long nextOffset, long entries, long incarnation,
        int watchers) {
}
