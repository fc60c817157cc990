/**
 * Spring Integration on Baton: {@link dev.baton.spring.integration.BatonLockRegistry}, a {@code
 * LockRegistry} on either backend's mutex, and the key layouts it can keep.
 */
package dev.baton.spring.integration;
