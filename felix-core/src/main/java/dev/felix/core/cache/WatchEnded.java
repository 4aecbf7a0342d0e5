package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;

/**
 * The last item of a watch that the cache ended. Everything before it was delivered in order; the watcher
 * continues without a gap by watching again from {@code resumeFrom} (a cache offset, not a count of items
 * this watcher received). If that offset is no longer retained the new watch fails with
 * {@link ErrorCode#CURSOR_TOO_OLD} and the watcher takes a fresh snapshot instead.
 *
 * @param resumeFrom the offset of the first change this watch did not deliver (it may be a change outside
 *                   the watch's prefix; resuming simply skips it again)
 * @param reason     why: {@link ErrorCode#OVERLOADED} when the watcher's queue overflowed,
 *                   {@link ErrorCode#CURSOR_TOO_OLD} when a replay fell behind the retained history,
 *                   {@link ErrorCode#UNAVAILABLE} when the cache closed or its storage failed
 */
public record WatchEnded(long resumeFrom, FelixError reason) implements WatchItem {
}
