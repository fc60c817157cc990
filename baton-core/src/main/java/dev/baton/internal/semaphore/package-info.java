/**
 * Implementation, not API. The counting semaphore in Curator's {@code InterProcessSemaphoreV2}
 * layout ({@code leases/} and {@code locks/}), and the non-reentrant mutex made of it.
 */
package dev.baton.internal.semaphore;
