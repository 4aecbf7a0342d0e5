package dev.felix.core.stream;

import dev.felix.storage.PayloadSource;
import java.nio.ByteBuffer;

/**
 * A batch's lent payloads as the records a durable shard's log appends ({@link PayloadSource}): the log copies each
 * payload from the lent memory straight into its staging buffer, so a durable append needs no array per payload.
 *
 * <p>One instance per shard, reused for every append (the positions array only grows): writer only, and valid only
 * during the append it was set up for ({@link #over}).
 */
final class LentRecords implements PayloadSource {

    private LentPayloads lent;
    private int count;
    /** Byte position of each payload's length prefix. */
    private int[] positions = new int[16];

    /** This view over {@code count} events of {@code lent} from {@code position}. */
    LentRecords over(LentPayloads lent, int position, int count) {
        if (positions.length < count) {
            positions = new int[Math.max(count, positions.length * 2)];
        }
        int at = position;
        for (int i = 0; i < count; i++) {
            positions[i] = at;
            at += LentPayloads.LENGTH_PREFIX + lent.lengthAt(at);
        }
        this.lent = lent;
        this.count = count;
        return this;
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public int length(int i) {
        return lent.lengthAt(positions[i]);
    }

    @Override
    public void copyTo(int i, ByteBuffer dst) {
        int at = positions[i];
        lent.copy(at + LentPayloads.LENGTH_PREFIX, dst, lent.lengthAt(at));
    }
}
