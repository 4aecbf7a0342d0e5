/**
 * Tests of the Java SDK (felix-client) against a real broker on loopback: its subscription, cache-mirror and
 * publisher state machines, and the error codes both sides agree on. They live in felix-server's test tree
 * because felix-server's tests already depend on felix-client: felix-client's own tests cannot start a
 * broker without a dependency cycle. felix-client's in-process tests (frame decoding, flow control, queues,
 * error mapping) are in that module.
 */
package dev.felix.client;
