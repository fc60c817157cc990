package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cache.TreeCache;
import java.time.Duration;
import java.util.Set;

/**
 * Refuses to read a path as a recipe it is not: {@code lock holder} on a service or a config
 * folder would otherwise say "free", which is true of no lock and misleads. A missing path, or one
 * without children, is any recipe at rest and passes.
 */
public final class RecipeCheck {
  private RecipeCheck() {}

  private static String withArticle(String noun) {
    return ("aeiou".indexOf(noun.charAt(0)) >= 0 ? "an " : "a ") + noun;
  }

  /**
   * @throws CliException naming the path, what was asked for and what the path is
   */
  public static void expect(Baton baton, String path, Duration timeout, String asked, NodeKind... allowed) {
    try (TreeCache cache = baton.cache(path)) {
      if (!cache.start().awaitInitialized(timeout)) {
        throw new CliException("Could not read " + path + " within " + DurationConverter.seconds(timeout));
      }
      if (cache.children(path).isEmpty()) {
        return;
      }
      NodeKind kind = TreeCommand.kindOf(cache, path);
      if (Set.of(allowed).contains(kind)) {
        return;
      }
      throw new CliException(path + " is not " + withArticle(asked) + ": "
          + (kind == NodeKind.PLAIN
              ? "its children (" + String.join(", ", cache.children(path).keySet().stream().limit(5).toList())
                  + (cache.children(path).size() > 5 ? ", ..." : "") + ") are not " + withArticle(asked) + "'s nodes"
              : "it is " + withArticle(kind.label()))
          + "; 'baton tree " + path + "' shows what it holds");
    }
  }
}
