/**
 * Implementation, not API. The counter.
 */
package dev.baton.internal.atomic;
