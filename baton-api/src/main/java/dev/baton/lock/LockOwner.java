package dev.baton.lock;

import dev.baton.FencingTokens;
import java.time.Instant;

/**
 * Who is queued on, or holds, a lock, as recorded in the lock node's data by Baton clients.
 * Nodes written by other libraries (Curator writes the client's IP address) show what could be
 * read: {@code host} holds that data and the other fields are empty or zero.
 *
 * @param node the lock node's name under the lock path
 * @param fencingToken the token the node's first holder was (or will be) given; see {@link FencingTokens}
 * @param host host name of the owning process
 * @param pid process id of the owning process, 0 if unknown
 * @param thread name of the thread that asked for the lock, empty if unknown
 * @param sessionId the ZooKeeper session that owns the node
 * @param queuedAt when the node was created, by the ensemble's clock
 * @param cached whether the node is kept by a client that caches the lock ({@link
 *     MutexOptions#withCaching}): held for that client, idle or in use by one of its threads;
 *     {@code thread} is then empty and {@code fencingToken} that of the node's first holder
 */
public record LockOwner(
    String node, long fencingToken, String host, long pid, String thread, long sessionId,
    Instant queuedAt, boolean cached) {}
