/**
 * The work queue: FIFO items that stay in the queue until a consumer acknowledges them, and go to
 * another consumer if the first dies.
 */
package dev.baton.queue;
