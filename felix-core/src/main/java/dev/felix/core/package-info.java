/**
 * The core's shared vocabulary, used by every package below it and by the server and the cluster: names
 * ({@link dev.felix.core.StreamName}), declared guarantees and settings ({@link dev.felix.core.StreamConfig},
 * {@link dev.felix.core.CoreConfig}, {@link dev.felix.core.QueueLimits}, {@link dev.felix.core.QueuePolicy},
 * {@link dev.felix.core.Consistency}), where a subscription starts ({@link dev.felix.core.StartPosition}), the
 * checkpoints where an event can wait ({@link dev.felix.core.Checkpoint}) and their counters
 * ({@link dev.felix.core.CoreMetrics}), and errors as values with stable codes ({@link dev.felix.core.ErrorCode},
 * {@link dev.felix.core.FelixError}, {@link dev.felix.core.FelixException}). Plain Java: no Netty, no wire types,
 * nothing from the subpackages. The top of the core is {@code dev.felix.core.broker.Broker}.
 */
package dev.felix.core;
