/**
 * Baton on the SQL database a team already runs (PostgreSQL, MySQL 8, MariaDB 10.6+): {@link
 * dev.baton.jdbc.JdbcBaton} hands out the same {@link dev.baton.lock.Mutex} and {@link
 * dev.baton.lock.Lease} as the ZooKeeper and Redis clients, and a {@link dev.baton.lock.Semaphore},
 * a {@link dev.baton.lock.ReadWriteLock} and a {@link dev.baton.atomic.Counter}, each in a table of
 * its own.
 *
 * <h2>What SQL cannot promise that ZooKeeper can</h2>
 * <ul>
 *   <li>No session: a lease is a row with an expiry, kept alive by renewals. A holder that stalls
 *       past its TTL loses the lock without the database telling it; its own timer turns it LOST
 *       first (the client's deadline is the renewal's send time plus the TTL less a drift margin),
 *       but only {@link dev.baton.jdbc.JdbcBaton#guarded} or a token checked by the resource stops a
 *       late write.</li>
 *   <li>Expiry is judged by the database's clock, the client's deadline by its own: a client whose
 *       clock runs more than the drift margin (a fiftieth of the TTL) slower than the database's over
 *       one TTL could act on a lease the database has already given away.</li>
 *   <li>No queue in the store: waiters of different clients race for a freed row; the waiters of
 *       one client are served in order. No FIFO across clients, and a mutex's {@code waiters()}
 *       lists only this client's (a read-write lock's lists the waiter each client is trying for,
 *       which the table keeps so that a waiting writer holds back every client's later readers).</li>
 *   <li>A release wakes waiters of other clients through {@code pg_notify} on PostgreSQL (each
 *       waiting client then sends one statement); on MySQL there is no notify, so waiters re-check on a
 *       back-off (up to a second) bounded by the holder's expiry.</li>
 *   <li>Fencing tokens come from the lock's row: deleting a row resets its lock's tokens. On
 *       MySQL/MariaDB a replica promoted by asynchronous replication may not have the last grants,
 *       as with Redis; a PostgreSQL or MySQL failover without synchronous replication can lose a grant
 *       (two holders) and go back on tokens.</li>
 * </ul>
 */
package dev.baton.jdbc;
