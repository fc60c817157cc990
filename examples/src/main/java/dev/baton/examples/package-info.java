/**
 * One small runnable program per scenario of SCENARIOS.md; each {@code main} takes a server
 * address or starts one, and each {@code run} returns what a test checks.
 */
package dev.baton.examples;
