/**
 * The cluster's private PKI: a cluster CA, node certificates issued by it (by an operator, or by a node that
 * holds the CA key, on its first start), and a trust manager that accepts only certificates chained to the CA
 * ({@link dev.felix.cluster.tls.ClusterTls}). Raft RPC between nodes runs mutual TLS 1.3 with these; the peer
 * replication endpoint uses the same identity and trust. Nothing here knows Raft.
 */
package dev.felix.cluster.tls;
