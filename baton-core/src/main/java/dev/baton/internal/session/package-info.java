/**
 * Implementation, not API. The session layer: the one ZooKeeper session of a client (connection
 * states, retries, a new handle after expiry), path rules and packet limits, transactions, node
 * waits and persistent-watch caches. It depends on no recipe and not on the engine.
 */
package dev.baton.internal.session;
