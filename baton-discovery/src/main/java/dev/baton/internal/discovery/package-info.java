/**
 * Implementation, not API. Registrations, the JSON of curator-x-discovery, instance caches and
 * picking; on the session layer only.
 */
package dev.baton.internal.discovery;
