/**
 * The ZooKeeper client of Baton and what every capability shares: {@link dev.baton.Baton} (one
 * session, and the factory of the recipes), its builder, the retry policy, ACLs, codecs,
 * connection states, path and connect-string rules, and the root of Baton's unchecked exceptions,
 * {@link dev.baton.BatonException}. The ZooKeeper-specific parts of the lock API live here too:
 * {@link dev.baton.Baton#transaction}, {@link dev.baton.Baton#guard} and {@link
 * dev.baton.FencingTokens}.
 */
package dev.baton;
