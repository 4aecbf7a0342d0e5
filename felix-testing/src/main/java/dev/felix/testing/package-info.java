/**
 * Test fixtures shared by the modules' tests: {@link dev.felix.testing.ManualClock} (a clock tests move by
 * hand) and {@link dev.felix.testing.BrokerProcess} (a {@code felix server} child process). This module
 * depends on no Felix module, so every module's tests can use it (felix-storage's and felix-core's
 * included); it is a test-scoped dependency and in no product jar. The in-process broker fixture,
 * {@code dev.felix.server.TestBroker}, ships in felix-server's test-jar instead: it needs felix-server,
 * and felix-server's own tests use it.
 */
package dev.felix.testing;
