/**
 * Leader latch and leader selector over any backend's {@link dev.baton.lock.Mutex}: the leader is
 * the holder of a lock on the election's name, the others queue for it with {@code acquireAsync}
 * (no thread of theirs waits), and leadership is the lock's {@link dev.baton.lock.Lease}, so it is
 * lost exactly as that lease is (SUSPECT or LOST before another client can be granted). Built on
 * the public lock interfaces alone, so every backend without an election of its own (Redis, SQL)
 * shares this one algorithm.
 */
package dev.baton.internal.leadership;
