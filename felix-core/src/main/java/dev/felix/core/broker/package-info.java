/**
 * The top of the core: {@link dev.felix.core.broker.Broker} ties metadata, streams, caches, storage and the
 * writer threads of one node together. Everything else in the core is below it; nothing below imports it.
 */
package dev.felix.core.broker;
