package dev.felix.core.stream;

/**
 * What a subscriber receives, in order: event batches and gap notices. A gap notice always comes
 * before the first event after the gap.
 */
public sealed interface Delivery permits EventBatch, GapNotice {

    /** Events this item stands for (a gap counts as none: its events never arrive). */
    int eventCount();

    /** Payload bytes this item holds, for queue accounting. */
    long payloadBytes();
}
