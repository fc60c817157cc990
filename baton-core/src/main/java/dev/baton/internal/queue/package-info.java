/**
 * Implementation, not API. The work queue: items, claims, takers and the consumer loop.
 */
package dev.baton.internal.queue;
