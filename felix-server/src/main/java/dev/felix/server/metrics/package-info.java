/**
 * A node's metrics ({@link dev.felix.server.metrics.BrokerMetrics}): Micrometer meters over the core's checkpoint
 * counters and the server's own, in one Prometheus registry that {@code /metrics} renders. Every metric is
 * documented in {@code docs/operations.md}.
 */
package dev.felix.server.metrics;
