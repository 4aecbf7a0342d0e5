/**
 * A node's configuration. {@link dev.felix.server.config.Settings} lists every setting (key, default, parser);
 * {@link dev.felix.server.config.ConfigLoader} resolves them from defaults, YAML, environment and flags into a
 * {@link dev.felix.server.config.BrokerConfig} (with its {@link dev.felix.server.config.ClusterConfig}), naming the
 * setting and its origin in every error; embedding code builds the same records with their builders. Depends on
 * felix-core and felix-transport for the config types it derives.
 */
package dev.felix.server.config;
