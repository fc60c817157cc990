/**
 * Implementation, not API. ZooKeeper's queue for the leader latch and selector, Curator's
 * layout; the algorithm itself is every backend's, in {@code dev.baton.internal.leadership}.
 */
package dev.baton.internal.leader;
