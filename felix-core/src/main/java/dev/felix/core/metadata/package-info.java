/**
 * What exists: tenants, namespaces, streams and caches (each stream and cache with a uid), behind the
 * {@link dev.felix.core.metadata.Metadata} interface. A single node keeps it in small files
 * ({@link dev.felix.core.metadata.LocalMetadata}); a cluster keeps it in a replicated state machine.
 * Nothing here opens a log.
 */
package dev.felix.core.metadata;
