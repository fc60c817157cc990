/**
 * What every backend's leases share, free of any backend's types: the lease handed to a caller for
 * one level of a held lock. The ZooKeeper engine and the Redis backend both build on it.
 */
package dev.baton.internal.lease;
