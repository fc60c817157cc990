/**
 * ShedLock on Baton: {@link dev.baton.shedlock.BatonLockProvider}, a {@code LockProvider} on
 * either backend's mutex, so a scheduled job runs on one node at a time.
 */
package dev.baton.shedlock;
