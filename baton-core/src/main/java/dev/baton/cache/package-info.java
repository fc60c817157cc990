/**
 * Local copies of ZooKeeper nodes kept current by persistent watches: {@link
 * dev.baton.cache.TreeCache} for a subtree, {@link dev.baton.cache.NodeCache} for one node, made
 * by {@code baton.cache(path)} and {@code baton.nodeCache(path)}; they tell {@link
 * dev.baton.cache.CacheListener}s of nodes added, changed and removed.
 */
package dev.baton.cache;
