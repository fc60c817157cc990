/**
 * A ZooKeeper server in this JVM, for development, demos and tests; not for production.
 */
package dev.baton.embedded;
