/**
 * Implementation, not API. The one way Baton keeps a local copy of nodes current with persistent
 * watches ({@code TreeSync} over a {@code NodeTree}): the public caches of {@code dev.baton.cache}
 * stand on it, and so do the config center and the service registry. It depends on the session
 * layer only; recipes may depend on it, as on the engine.
 */
package dev.baton.internal.cache;
