package dev.baton.cache;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener that rebuilds the tree from the events alone, and records every event that
 * contradicts what it heard before: an add of a node it holds (a phantom or repeated add), a
 * change or removal of a node it does not hold, or a change whose "before" is not what it was
 * told last. A cache that missed an event ends with a model unlike the server's tree; one that
 * invented one leaves an error here.
 */
final class ModelListener implements CacheListener {
  final Map<String, CachedNode> model = new ConcurrentSkipListMap<>();
  final List<String> errors = new CopyOnWriteArrayList<>();
  final List<String> log = new CopyOnWriteArrayList<>();
  final AtomicInteger initialized = new AtomicInteger();

  @Override
  public void added(CachedNode node) {
    log.add("added " + node.path() + "=" + node.dataAsString());
    CachedNode old = model.put(node.path(), node);
    if (old != null) {
      errors.add("added " + node.path() + " while holding " + old);
    }
  }

  @Override
  public void changed(CachedNode before, CachedNode after) {
    log.add("changed " + after.path() + "=" + after.dataAsString());
    CachedNode old = model.put(after.path(), after);
    if (!Objects.equals(old, before)) {
      errors.add("changed " + after.path() + " from " + before + " but held " + old);
    }
    if (before.mzxid() == after.mzxid()) {
      errors.add("changed " + after.path() + " without a write");
    }
  }

  @Override
  public void removed(CachedNode node) {
    log.add("removed " + node.path());
    CachedNode old = model.remove(node.path());
    if (!Objects.equals(old, node)) {
      errors.add("removed " + node.path() + " as " + node + " but held " + old);
    }
  }

  @Override
  public void initialized() {
    log.add("initialized");
    initialized.incrementAndGet();
  }

  /** The model as path and "data@version", to compare with the server's tree. */
  Map<String, String> view() {
    Map<String, String> view = new ConcurrentSkipListMap<>();
    model.forEach((path, node) -> view.put(path, node.dataAsString() + "@" + node.version()));
    return view;
  }
}
