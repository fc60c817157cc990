/**
 * A distributed counter: a {@code long} in one node, updated by compare-and-set on its version.
 */
package dev.baton.atomic;
