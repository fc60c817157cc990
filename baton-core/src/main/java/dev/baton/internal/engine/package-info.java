/**
 * Implementation, not API. The ordered-queue engine that every queue-based recipe shares: queues
 * of sequential nodes in Curator's layout ({@code _c_<uuid>-<kind><sequence>}), each waiter watching
 * only the node it waits for, the rules several recipes use (mutual exclusion), and the held
 * lock with its lease state, token and guard. It depends on the session layer only.
 */
package dev.baton.internal.engine;
