/**
 * JMH micro-benchmarks of the hot paths without the network: the wire codec
 * ({@link dev.felix.bench.micro.CodecJmh}) and the core's publish-and-fanout
 * ({@link dev.felix.bench.micro.FanoutJmh}). Entry: {@link dev.felix.bench.micro.MicroBenchmarks}
 * ({@code felix bench micro}), which also runs the storage append benchmark. Depends on felix-wire, felix-core and
 * JMH.
 */
package dev.felix.bench.micro;
