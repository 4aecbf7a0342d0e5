/**
 * {@code felix demo state-divergence}: consumers keep a local copy of a keyspace from a change stream or a cache
 * mirror; one stalls, and the demo shows (and asserts) how each mode gets it back to the truth. Entry:
 * {@link dev.felix.demos.divergence.StateDivergenceDemo}; each {@link dev.felix.demos.divergence.DivergenceMode} is
 * run by a {@link dev.felix.demos.divergence.DivergenceRun} on a fresh broker and summed up by
 * {@link dev.felix.demos.divergence.DivergenceReport}. Depends on {@code dev.felix.demos.common}, the server and
 * the client SDK.
 */
package dev.felix.demos.divergence;
