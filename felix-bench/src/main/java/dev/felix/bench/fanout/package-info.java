/**
 * {@code felix bench fanout}: one publisher, thousands of subscribers of one stream spread over many connections,
 * Felix beside NATS on the same machine. It measures how long it takes to subscribe them all, delivery latency to
 * every subscriber, what the broker process spends (CPU per million deliveries, memory per subscriber), and checks
 * every delivery's sequence number, so loss and lost connections are counted, never hidden.
 */
package dev.felix.bench.fanout;
