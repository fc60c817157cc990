/**
 * Micrometer meters for Baton: {@link dev.baton.micrometer.MicrometerObserver} for a client's
 * locks and session, {@link dev.baton.micrometer.ConfigMetrics} and {@link
 * dev.baton.micrometer.RegistryMetrics} for the config center and the service registry. Tags are
 * bounded ({@link dev.baton.micrometer.PathTags}).
 */
package dev.baton.micrometer;
