/**
 * The floor under every Felix figure: {@code quic-floor}, a forwarder written straight on the transport Felix uses
 * (Netty's QUIC codec over quiche, TLS 1.3, the broker's and the SDK's transport settings, GSO and flush
 * consolidation), with nothing of a broker in it. A publisher's stream bytes are passed on, as they arrived and
 * without a copy, to every subscriber's stream of the topic; a confirmed message is acknowledged after that, as
 * Felix acknowledges after its deliveries. No streams, shards, offsets, queues, credits, sequence of its own, or
 * loss handling.
 *
 * <p>Run beside {@code felix} in the same script ({@code --systems felix,quic-floor}), it tells how much of a
 * latency, throughput or CPU figure is the transport and the machine, and how much is the broker: what the issue
 * calls "what the raw QUIC stack delivers". It is a measuring tool, not a broker: it keeps no state beyond the
 * topics' subscriber lists, and it trusts its clients.
 */
package dev.felix.bench.floor;
