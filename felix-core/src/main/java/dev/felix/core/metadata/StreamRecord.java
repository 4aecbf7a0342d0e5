package dev.felix.core.metadata;

import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;

/**
 * A stream as metadata knows it.
 *
 * @param uid distinguishes this stream from an earlier one of the same name that was deleted: its logs
 *            live in directories named with it, so a re-created stream never sees old data. 0 for streams
 *            created before uids existed (their logs keep their original directory names).
 */
public record StreamRecord(StreamName name, StreamConfig config, long uid) {
}
