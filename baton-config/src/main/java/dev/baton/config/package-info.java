/**
 * The config center: {@link dev.baton.config.ConfigCenter#open} reads keys from a local copy a
 * watch keeps current, writes with checks, tells listeners, and keeps a snapshot file.
 */
package dev.baton.config;
