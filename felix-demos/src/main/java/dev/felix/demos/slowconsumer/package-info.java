/**
 * {@code felix demo slow-consumer}: one stream, several dashboards, the last one stalls; each queue policy arm
 * ({@link dev.felix.demos.slowconsumer.IsolationPolicy}) runs on a fresh broker and the demo shows (and asserts)
 * that nobody else slows down and that every loss is announced. Entry:
 * {@link dev.felix.demos.slowconsumer.SlowConsumerDemo}; one arm is a
 * {@link dev.felix.demos.slowconsumer.SlowConsumerRun}, compared in
 * {@link dev.felix.demos.slowconsumer.SlowConsumerReport}. Depends on {@code dev.felix.demos.common}, the server and
 * the client SDK.
 */
package dev.felix.demos.slowconsumer;
