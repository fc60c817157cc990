/**
 * Reports the locks of a client to its {@link dev.baton.BatonObserver}: thin wrappers around the
 * recipes' mutexes, so no recipe knows it is observed.
 */
package dev.baton.internal.observe;
