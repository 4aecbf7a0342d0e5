/**
 * What both demos share: a fresh in-process broker per run ({@link dev.felix.demos.common.DemoBroker}), argument
 * parsing in upstream's style ({@link dev.felix.demos.common.ArgCursor}), open-loop pacing
 * ({@link dev.felix.demos.common.Pacer}), the broker's drop counters read from its metrics, the check that no offset
 * was lost silently ({@link dev.felix.demos.common.OffsetCoverage}), and the terminal, duration and verdict
 * formatting. Depends on felix-server and the client SDK.
 */
package dev.felix.demos.common;
