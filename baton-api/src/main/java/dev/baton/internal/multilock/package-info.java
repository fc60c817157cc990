/**
 * The multi-lock over any backend's {@link dev.baton.lock.Mutex}: all or nothing, in one global
 * order, built on the public lock interfaces alone so that every backend without a multi-lock of
 * its own (Redis, SQL) shares this one algorithm.
 */
package dev.baton.internal.multilock;
