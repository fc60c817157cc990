/**
 * Implementation, not API. The reentrant mutex (with local hand-over and caching), the
 * read-write lock, the multi-lock and cooperative revocation, on the engine.
 */
package dev.baton.internal.lock;
