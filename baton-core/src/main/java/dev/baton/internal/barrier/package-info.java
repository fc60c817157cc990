/**
 * Implementation, not API. The barrier and the double barrier, on the session layer's node waits.
 */
package dev.baton.internal.barrier;
