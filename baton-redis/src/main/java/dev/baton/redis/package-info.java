/**
 * Baton on Redis: {@link dev.baton.redis.RedisBaton} gives the same {@link dev.baton.lock.Mutex}
 * and {@link dev.baton.lock.Lease} as the ZooKeeper client, on a Redis server, a master that
 * Sentinel watches, or a Redis Cluster (every key of one lock shares the hash tag {@code {name}},
 * so each lock lives on one master; different locks spread over the masters).
 *
 * <h2>What Redis cannot promise that ZooKeeper can</h2>
 * <ul>
 *   <li>A lease lives by its TTL, not by a session the server watches: a holder that crashes
 *       keeps the lock until the TTL runs out (ZooKeeper frees it when the session expires, which
 *       is the same kind of wait, but the session timeout is negotiated and watched by the
 *       server; the TTL is a guess the client makes).</li>
 *   <li>Redis replicates asynchronously: a master that fails before its replica got the grant
 *       hands the lock to a second client after the failover. ZooKeeper commits a lock node on a
 *       quorum before anyone is told it holds it. {@link dev.baton.redis.RedisMutexOptions#withReplicaAcks}
 *       narrows that window without closing it. A Redis Cluster's failover is the same
 *       asynchronous promotion.</li>
 *   <li>Expiry is judged by the server's clock and the lease's validity by the client's: a clock
 *       that jumps or runs fast on the server ends a lease early. {@code validUntil()} subtracts
 *       a drift margin (1% of the TTL plus 2 ms) to cover rates, not jumps.</li>
 *   <li>Fairness is among Baton clients: processes that lock by hand, or Redisson's {@code
 *       RLock}, do not look at Baton's queue and may come first.</li>
 * </ul>
 * Fencing tokens ({@link dev.baton.lock.Lease#fencingToken()}) are what makes either backend safe
 * for work that must not be done twice: check them where the work lands. On Redis, tokens keep
 * growing across an asynchronous failover that lost the counter's last write only while the new
 * master's clock is not behind the old one's (see docs/redis.md): keep the hosts' clocks in step.
 */
package dev.baton.redis;
