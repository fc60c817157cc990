/**
 * The Java code of the README and of the guides in docs/, compiled here: each guide's snippets
 * are regions ({@code // [name]} ... {@code // [/name]}) of one class, and DocSnippetsTest fails
 * when a guide's copy differs from its region. The names around a region (a {@code stock}, a
 * {@code worker}) stand for the reader's own objects.
 */
package dev.baton.examples.docs;
