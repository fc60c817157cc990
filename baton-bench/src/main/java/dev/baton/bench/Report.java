package dev.baton.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the results: the table for people, and {@code results.json} in the shape
 * {@code {"scenarios":[{"name","unit","baton","curator","ratio",...}]}} for tools. A ratio above
 * 1 always means Baton did better: Baton / Curator for rates, Curator / Baton for times and
 * request counts. Figures are medians over rounds; ratios are taken within each round, and their
 * median, min and max reported.
 */
final class Report {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final String NONE = "-";

  private Report() {}

  // ---- JSON -------------------------------------------------------------------------------

  static ObjectNode json(List<ScenarioResult> results) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode scenarios = root.putArray("scenarios");
    for (ScenarioResult r : results) {
      scenarios.add(scenarioJson(r));
    }
    return root;
  }

  static void writeJson(List<ScenarioResult> results, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    JSON.writeValue(file.toFile(), json(results));
  }

  private static ObjectNode scenarioJson(ScenarioResult r) {
    ObjectNode node = JSON.createObjectNode();
    node.put("name", r.name());
    node.put("unit", r.unit());
    if (!r.implemented()) {
      node.putNull("baton");
      node.putNull("curator");
      node.putNull("ratio");
      node.put("status", "not implemented");
      node.put("description", r.description());
      return node;
    }
    Series baton = r.baton();
    Series curator = r.curator();
    Spread ratio = r.ratioToCurator(baton);
    putNumber(node, "baton", median(baton));
    putNumber(node, "curator", median(curator));
    putNumber(node, "ratio", ratio == null ? null : ratio.median());
    putNumber(node, "ratioMin", ratio == null ? null : ratio.min());
    putNumber(node, "ratioMax", ratio == null ? null : ratio.max());
    node.put("ratioRounds", ratio == null ? 0 : ratio.count());
    node.put("higherIsBetter", r.higherIsBetter());
    node.put("description", r.description());
    putRange(node, "baton", baton);
    putRange(node, "curator", curator);
    if (curator != null && curator.isCapped()) {
      node.put("curatorCapped", true);
    }
    putMetrics(node, "batonMetrics", baton);
    putMetrics(node, "curatorMetrics", curator);
    List<Series> floors = r.withRole(Role.FLOOR);
    if (!floors.isEmpty()) {
      ArrayNode array = node.putArray("floor");
      for (Series f : floors) {
        array.add(otherJson(r, f, "pattern"));
      }
    }
    List<Series> references = r.withRole(Role.REFERENCE);
    if (!references.isEmpty()) {
      ArrayNode array = node.putArray("references");
      for (Series ref : references) {
        array.add(otherJson(r, ref, "label"));
      }
    }
    if (!r.comparisons().isEmpty()) {
      ArrayNode array = node.putArray("comparisons");
      for (ScenarioResult.Comparison c : r.comparisons()) {
        ObjectNode item = array.addObject();
        Spread pair = r.ratio(c);
        item.put("label", c.label());
        putNumber(item, "baton", median(c.baton()));
        putNumber(item, "curator", median(c.curator()));
        putNumber(item, "ratio", pair == null ? null : pair.median());
        putNumber(item, "ratioMin", pair == null ? null : pair.min());
        putNumber(item, "ratioMax", pair == null ? null : pair.max());
      }
    }
    if (!r.notes().isEmpty()) {
      ArrayNode notes = node.putArray("notes");
      r.notes().forEach(notes::add);
    }
    return node;
  }

  private static ObjectNode otherJson(ScenarioResult r, Series s, String labelField) {
    ObjectNode node = JSON.createObjectNode();
    node.put(labelField, s.label());
    putNumber(node, "value", median(s));
    Spread ratio = r.ratioToCurator(s);
    putNumber(node, "ratio", ratio == null ? null : ratio.median());
    putNumber(node, "ratioMin", ratio == null ? null : ratio.min());
    putNumber(node, "ratioMax", ratio == null ? null : ratio.max());
    if (s.isCapped()) {
      node.put("capped", true);
    }
    putMetrics(node, "metrics", s);
    return node;
  }

  private static void putRange(ObjectNode node, String prefix, Series s) {
    Spread spread = s == null ? null : s.spread();
    if (spread != null) {
      putNumber(node, prefix + "Min", spread.min());
      putNumber(node, prefix + "Max", spread.max());
    }
  }

  private static void putMetrics(ObjectNode node, String field, Series s) {
    if (s == null || s.extraNames().isEmpty()) {
      return;
    }
    ObjectNode metrics = node.putObject(field);
    for (String name : s.extraNames()) {
      Spread spread = s.extra(name);
      putNumber(metrics, name, spread == null ? null : spread.median());
    }
  }

  private static void putNumber(ObjectNode node, String field, Double value) {
    if (value == null || value.isNaN() || value.isInfinite()) {
      node.putNull(field);
    } else {
      node.put(field, rounded(value));
    }
  }

  /** Four significant digits: more would be noise on these machines. */
  static double rounded(double value) {
    return value == 0 ? 0 : new BigDecimal(value).round(new MathContext(4)).doubleValue();
  }

  private static Double median(Series s) {
    Spread spread = s == null ? null : s.spread();
    return spread == null ? null : spread.median();
  }

  // ---- table ------------------------------------------------------------------------------

  /** The whole text report: summary, floors, details, notes. */
  static String table(List<ScenarioResult> results, String header) {
    StringBuilder out = new StringBuilder(header).append('\n');

    Table main = new Table("scenario", "unit", "Baton", "peer", "ratio median [min-max]", "best floor");
    for (ScenarioResult r : results) {
      if (!r.implemented()) {
        main.row(r.name(), r.unit(), "not implemented", NONE, NONE, NONE);
        continue;
      }
      Series baton = r.baton();
      Series curator = r.curator();
      main.row(r.name(), r.unit(), figure(baton, r), figure(curator, r),
          ratio(r.ratioToCurator(baton), curator != null && curator.isCapped()), bestFloor(r));
      for (ScenarioResult.Comparison c : r.comparisons()) {
        main.row("  " + c.label(), r.unit(), figure(c.baton(), r), figure(c.curator(), r),
            ratio(r.ratio(c), c.curator().isCapped()), NONE);
      }
    }
    out.append('\n').append(main.render());

    Table floors = new Table("scenario", "raw-client pattern (no library)", "figure", "ratio to the peer [min-max]");
    for (ScenarioResult r : results) {
      for (Series f : r.withRole(Role.FLOOR)) {
        floors.row(r.name(), f.label(), figure(f, r) + " " + r.unit(), ratio(r.ratioToCurator(f), false));
      }
    }
    if (!floors.isEmpty()) {
      out.append("\nFloors: a raw client (ZooKeeper, Redis or JDBC) running each request pattern, same server, same rounds\n");
      out.append(floors.render());
    }

    Table details = new Table("scenario", "contender", "figure", "details (medians over rounds)");
    for (ScenarioResult r : results) {
      if (!r.implemented()) {
        continue;
      }
      for (Series s : r.series()) {
        String metrics = metrics(s);
        boolean worthARow = s.role() == Role.REFERENCE || !metrics.isEmpty();
        if (worthARow && s.spread() != null) {
          details.row(r.name(), s.label(), figure(s, r) + " " + r.unit(), metrics);
        }
      }
    }
    if (!details.isEmpty()) {
      out.append("\nDetails\n").append(details.render());
    }

    List<String> notes = new ArrayList<>();
    for (ScenarioResult r : results) {
      if (!r.implemented()) {
        notes.add(r.name() + ": not implemented - " + r.description());
      }
      for (String note : r.notes()) {
        notes.add(r.name() + ": " + note);
      }
    }
    if (!notes.isEmpty()) {
      out.append("\nNotes\n");
      notes.forEach(n -> out.append("- ").append(n).append('\n'));
    }
    return out.toString();
  }

  private static String figure(Series s, ScenarioResult r) {
    Spread spread = s == null ? null : s.spread();
    if (spread == null) {
      return NONE;
    }
    String text = number(spread.median(), r.unit());
    return s.isCapped() ? ">=" + text : text;
  }

  private static String ratio(Spread ratio, boolean lowerBound) {
    if (ratio == null) {
      return NONE;
    }
    String text = String.format(Locale.ROOT, "%.2fx [%.2f-%.2f]", ratio.median(), ratio.min(), ratio.max());
    if (ratio.count() == 1) {
      text = String.format(Locale.ROOT, "%.2fx (1 round)", ratio.median());
    }
    // A capped Curator time is a lower bound of its time, so of the ratio too.
    return lowerBound ? ">=" + text : text;
  }

  private static String bestFloor(ScenarioResult r) {
    List<Series> floors = r.withRole(Role.FLOOR);
    if (floors.isEmpty()) {
      return NONE;
    }
    if (r.unit().startsWith("requests")) {
      // A count's floor is a control value, not a ratio.
      return "control " + figure(floors.get(0), r);
    }
    Series best = null;
    Spread bestRatio = null;
    for (Series f : floors) {
      Spread ratio = r.ratioToCurator(f);
      if (ratio != null && (bestRatio == null || ratio.median() > bestRatio.median())) {
        best = f;
        bestRatio = ratio;
      }
    }
    return best == null ? NONE : String.format(Locale.ROOT, "%.2fx %s", bestRatio.median(), shortLabel(best));
  }

  /** "(c)" from "(c) raw: ...". */
  private static String shortLabel(Series s) {
    String label = s.label();
    return label.startsWith("(") && label.indexOf(')') > 0 ? label.substring(0, label.indexOf(')') + 1) : "";
  }

  private static String metrics(Series s) {
    List<String> parts = new ArrayList<>();
    Spread p50 = s.extra("p50Us");
    Spread p99 = s.extra("p99Us");
    if (p50 != null && p99 != null) {
      parts.add(String.format(Locale.ROOT, "cycle p50 %s us, p99 %s us", grouped(p50.median()), grouped(p99.median())));
    }
    Spread minShare = s.extra("minClientShare");
    Spread maxShare = s.extra("maxClientShare");
    if (minShare != null && maxShare != null) {
      parts.add(String.format(Locale.ROOT, "client share %.1f%% - %.1f%%", 100 * minShare.median(), 100 * maxShare.median()));
    }
    Spread handOver = s.extra("handOverP50Us");
    Spread handOverP99 = s.extra("handOverP99Us");
    if (handOver != null && handOverP99 != null) {
      parts.add(String.format(Locale.ROOT, "hand-over p50 %s us, p99 %s us", grouped(handOver.median()),
          grouped(handOverP99.median())));
    }
    Spread perCycle = s.extra("requestsPerCycle");
    if (perCycle != null) {
      parts.add(String.format(Locale.ROOT, "%.2f requests/cycle", perCycle.median()));
    }
    Spread perWaiter = s.extra("requestsPerWaiter");
    if (perWaiter != null) {
      parts.add(String.format(Locale.ROOT, "%.1f requests/waiter", perWaiter.median()));
    }
    Spread millis = s.extra("ms");
    if (millis != null) {
      parts.add(String.format(Locale.ROOT, "took %s ms", grouped(millis.median())));
    }
    Spread heap = s.extra("peakHeapMB");
    Spread threads = s.extra("peakThreads");
    if (heap != null && threads != null) {
      parts.add(String.format(Locale.ROOT, "peak heap %s MB, peak %s threads", grouped(heap.max()),
          grouped(threads.max())));
    }
    Spread growth = s.extra("heapGrowthMB");
    if (growth != null) {
      parts.add(String.format(Locale.ROOT, "heap after GC %+.1f MB", growth.median()));
    }
    Spread passed = s.extra("passed");
    if (s.isCapped() && passed != null) {
      parts.add(String.format(Locale.ROOT, "capped: %.0f passed", passed.min()));
    }
    List<Integer> rounds = s.roundsRun();
    if (!rounds.isEmpty() && s.spread() != null && s.spread().count() > 1) {
      parts.add("range " + number(s.spread().min(), "") + " - " + number(s.spread().max(), ""));
    }
    return String.join("; ", parts);
  }

  private static String number(double value, String unit) {
    if (unit.startsWith("requests")) {
      return String.format(Locale.ROOT, "%.2f", value);
    }
    return grouped(value);
  }

  private static String grouped(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }

  /** A plain text table with columns as wide as their widest cell. */
  static final class Table {
    private final String[] headers;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... headers) {
      this.headers = headers;
    }

    void row(String... cells) {
      if (cells.length != headers.length) {
        throw new IllegalArgumentException("row has " + cells.length + " cells, table " + headers.length);
      }
      rows.add(cells);
    }

    boolean isEmpty() {
      return rows.isEmpty();
    }

    String render() {
      int[] widths = new int[headers.length];
      for (int i = 0; i < headers.length; i++) {
        widths[i] = headers[i].length();
        for (String[] row : rows) {
          widths[i] = Math.max(widths[i], row[i].length());
        }
      }
      StringBuilder out = new StringBuilder();
      line(out, headers, widths);
      String[] rule = new String[headers.length];
      for (int i = 0; i < rule.length; i++) {
        rule[i] = "-".repeat(widths[i]);
      }
      line(out, rule, widths);
      rows.forEach(row -> line(out, row, widths));
      return out.toString();
    }

    private static void line(StringBuilder out, String[] cells, int[] widths) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < cells.length; i++) {
        line.append(i == 0 ? "" : "  ").append(String.format("%-" + widths[i] + "s", cells[i]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }
}
