/**
 * Leader election: the latch (lead while the lease is held) and the selector (run a task while
 * leading). Leadership is a {@link dev.baton.lock.Lease}, with its fencing token.
 */
package dev.baton.leader;
