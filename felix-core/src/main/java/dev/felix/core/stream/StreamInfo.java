package dev.felix.core.stream;

import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import java.util.List;

/** A stream's definition and a snapshot of its shards. */
public record StreamInfo(StreamName name, StreamConfig config, List<ShardInfo> shards) {
}
