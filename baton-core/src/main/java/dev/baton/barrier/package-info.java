/**
 * Barriers: one that is up while its node exists, and the double barrier that opens once enough
 * members are in and closes once all are out.
 */
package dev.baton.barrier;
