package dev.felix.wire;

/**
 * A payload in one of the binary layouts of wire v1 (§5 of the upstream spec), selected by non-zero
 * frame flags. Records holding {@code byte[]} compare contents in {@code equals} and print only
 * lengths in {@code toString}.
 */
public sealed interface BinaryPayload extends WirePayload
    permits BinaryPublishBatch, BinaryAckedPublishBatch, BinaryPublishAck, BinaryEventBatch,
    BinarySharedEventBatch, BinaryMuxEventBatch, BinaryRoutedPublishBatch, BinaryPublishResult,
    BinaryWatchChanges {
}
