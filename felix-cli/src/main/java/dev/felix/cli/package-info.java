/**
 * The {@code felix} command (picocli): {@link dev.felix.cli.FelixCommand} is the root, with one class per
 * subcommand ({@code server}, {@code pub}, {@code sub}, {@code stream}, {@code cache}, {@code cluster},
 * {@code log}, {@code demo}, {@code bench}). {@link dev.felix.cli.ClientOptions} holds the connection options every
 * client command shares, {@link dev.felix.cli.OptionTypes} every option's valid range, and
 * {@link dev.felix.cli.Errors} turns every failure into one line and an exit status. Depends on felix-server (for
 * {@code felix server}), the client SDK and felix-demos.
 */
package dev.felix.cli;
