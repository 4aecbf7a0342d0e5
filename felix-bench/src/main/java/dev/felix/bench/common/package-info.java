/**
 * What every benchmark shares: an in-process broker on loopback for one run
 * ({@link dev.felix.bench.common.BenchBroker}), peer broker processes the harness owns
 * ({@link dev.felix.bench.common.PeerProcess}), the 16-byte sequence/timestamp header of every benchmark message
 * ({@link dev.felix.bench.common.Stamp}) with its per-subscriber {@link dev.felix.bench.common.SequenceCheck},
 * CPU and GC accounting, summary statistics, the progress line, and the JSON results file
 * ({@link dev.felix.bench.common.Results}). Depends on the server and the client SDK.
 */
package dev.felix.bench.common;
