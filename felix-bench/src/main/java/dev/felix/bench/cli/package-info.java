/**
 * The {@code felix bench} command line: picocli commands over the benchmarks of the other packages, and
 * {@link dev.felix.bench.cli.BenchMain}, the entry point of {@code felix-bench.jar} that the {@code ./felix}
 * launcher runs for {@code felix bench ...}. Nothing else in the project depends on this package.
 */
package dev.felix.bench.cli;
