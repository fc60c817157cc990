/**
 * Implementation, not API. The leader latch and selector: candidacies queued on the engine.
 */
package dev.baton.internal.leader;
