package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of the README and of docs/ is a copy of a region of a file under examples/ that
 * compiles in this build: the line before the block names it, as {@code <!-- from:
 * examples/src/main/java/dev/baton/examples/docs/LocksGuide.java#mutex -->}, and the region lies
 * between {@code // [mutex]} and {@code // [/mutex]} in that file. A block that differs from its
 * region, or names none, fails here; so an API change that breaks a documented snippet breaks the
 * build instead of the reader.
 */
class DocSnippetsTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern SOURCE = Pattern.compile("<!-- from: (\\S+)#(\\S+) -->");

  record Block(Path doc, int line, String source, String region, String code) {
    String where() {
      return ROOT.relativize(doc) + ":" + line;
    }
  }

  @Test
  void everyJavaBlockOfTheDocs_isTheRegionOfACompiledExampleItNames() throws IOException {
    List<Block> blocks = blocks();
    assertThat(blocks).as("Java blocks found in README.md and docs/").hasSizeGreaterThan(20);
    List<String> problems = new ArrayList<>();
    for (Block block : blocks) {
      if (block.source() == null) {
        problems.add(block.where() + ": no '<!-- from: examples/...java#region -->' line before the block");
        continue;
      }
      Path source = ROOT.resolve(block.source());
      if (!block.source().startsWith("examples/") || !Files.isRegularFile(source)) {
        problems.add(block.where() + ": " + block.source() + " is not a file under examples/");
        continue;
      }
      String region = region(Files.readAllLines(source, StandardCharsets.UTF_8), block.region());
      if (region == null) {
        problems.add(block.where() + ": " + block.source() + " has no region '// [" + block.region() + "]' ... '// [/"
            + block.region() + "]'");
      } else if (!region.equals(block.code())) {
        problems.add(block.where() + ": differs from " + block.source() + "#" + block.region() + "; the source has:\n"
            + region + "\n--- the doc has:\n" + block.code());
      }
    }
    assertThat(problems).as("doc snippets out of step with their sources").isEmpty();
  }

  private static List<Block> blocks() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<Block> blocks = new ArrayList<>();
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).strip().equals("```java")) {
          continue;
        }
        int end = i + 1;
        while (end < lines.size() && !lines.get(end).strip().equals("```")) {
          end++;
        }
        Matcher from = i > 0 ? SOURCE.matcher(lines.get(i - 1).strip()) : null;
        boolean named = from != null && from.matches();
        // A block inside a list item is indented as deep as its fence; its code, less that.
        int fence = lines.get(i).length() - lines.get(i).stripLeading().length();
        List<String> code = lines.subList(i + 1, end).stream()
            .map(l -> l.length() >= fence && l.substring(0, fence).isBlank() ? l.substring(fence) : l.stripLeading())
            .toList();
        blocks.add(new Block(doc, i + 1, named ? from.group(1) : null, named ? from.group(2) : null,
            String.join("\n", code)));
        i = end;
      }
    }
    return blocks;
  }

  /** The lines between the region's markers, less the indentation they all share; null if absent. */
  private static String region(List<String> lines, String name) {
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.equals("// [" + name + "]")) {
        start = i + 1;
      } else if (line.equals("// [/" + name + "]") && start >= 0) {
        List<String> body = lines.subList(start, i);
        int indent = body.stream().filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return String.join("\n", body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
      }
    }
    return null;
  }
}
