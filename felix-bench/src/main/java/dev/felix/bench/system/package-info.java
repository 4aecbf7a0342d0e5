/**
 * The systems a benchmark runs against: Felix (in-process broker, Java SDK client) and the peers the
 * harness starts itself from their installed binaries (NATS core, NATS JetStream, Redis pub/sub), each
 * behind the same narrow {@link dev.felix.bench.system.Target} interface so one workload measures all
 * of them the same way.
 *
 * <p>(Named {@code system} rather than {@code target}: a source package called {@code target} is
 * swallowed by build-output ignore rules.)
 */
package dev.felix.bench.system;
