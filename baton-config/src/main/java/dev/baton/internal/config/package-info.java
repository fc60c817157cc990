/**
 * Implementation, not API. The config center's tree, its sync by a persistent recursive watch,
 * its checked writes and its snapshot file; on the session layer only.
 */
package dev.baton.internal.config;
