/**
 * The service registry in curator-x-discovery's layout: {@link
 * dev.baton.discovery.ServiceRegistry#open} registers ephemeral instances and keeps live views.
 */
package dev.baton.discovery;
