package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;

/**
 * {@code results.png}: per scenario, Baton's ratio to Curator (median over rounds) beside the
 * ratios of the raw-client floor patterns measured in the same run; a line marks Curator (1.0).
 * Categories name the min-max of Baton's ratio, which a bar cannot show.
 */
final class RatioChart {
  private static final int WIDTH = 1400;
  private static final int HEIGHT = 800;

  private RatioChart() {}

  /** Writes the chart, or nothing when no scenario has a ratio. Returns whether it wrote. */
  static boolean write(List<ScenarioResult> results, Path png, String subtitle) throws IOException {
    List<ScenarioResult> charted = new ArrayList<>();
    for (ScenarioResult r : results) {
      // Request counts are not speed: they stay in the table.
      if (r.implemented() && !r.name().equals(RequestCountScenario.NAME) && r.ratioToCurator(r.baton()) != null) {
        charted.add(r);
      }
    }
    if (charted.isEmpty()) {
      return false;
    }
    List<String> categories = new ArrayList<>();
    List<Double> batonRatios = new ArrayList<>();
    Map<String, List<Double>> floorRatios = new LinkedHashMap<>();
    double highest = 1;
    for (ScenarioResult r : charted) {
      Spread ratio = r.ratioToCurator(r.baton());
      categories.add(ratio.count() == 1
          ? r.name() + " (1 round)"
          : String.format(Locale.ROOT, "%s [%.2f-%.2f]", r.name(), ratio.min(), ratio.max()));
      batonRatios.add(ratio.median());
      highest = Math.max(highest, ratio.median());
      for (Series f : r.withRole(Role.FLOOR)) {
        floorRatios.computeIfAbsent(f.label(), l -> new ArrayList<>());
      }
    }
    for (ScenarioResult r : charted) {
      for (Map.Entry<String, List<Double>> e : floorRatios.entrySet()) {
        Series floor = r.withRole(Role.FLOOR).stream()
            .filter(f -> f.label().equals(e.getKey())).findFirst().orElse(null);
        Spread ratio = floor == null ? null : r.ratioToCurator(floor);
        e.getValue().add(ratio == null ? null : ratio.median());
        if (ratio != null) {
          highest = Math.max(highest, ratio.median());
        }
      }
    }

    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
        .title("Baton vs Curator - ratio per scenario (> 1: Baton better)   " + subtitle)
        .xAxisTitle("scenario [min-max of Baton's ratio over rounds]")
        .yAxisTitle("ratio to Curator (median over rounds)")
        .build();
    Styler.ChartTheme theme = Styler.ChartTheme.XChart;
    chart.getStyler().setTheme(theme.newInstance(theme));
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    chart.getStyler().setDecimalPattern("0.00");
    chart.getStyler().setYAxisDecimalPattern("0.00");
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setAvailableSpaceFill(0.8);
    chart.getStyler().setYAxisMin(0.0);
    // A herd-free shared lock can be tens of times faster than Curator's: keep small ratios readable.
    if (highest > 6) {
      chart.getStyler().setYAxisLogarithmic(true);
      chart.getStyler().setYAxisMin(0.1);
      chart.getStyler().setYAxisMax(highest * 1.6);
      chart.setYAxisTitle("ratio to Curator (median over rounds, log scale)");
    }

    chart.addSeries("Baton", categories, batonRatios).setFillColor(new Color(0x1f, 0x77, 0xb4));
    Color[] floorColors = {
        new Color(0xbb, 0xbb, 0xbb), new Color(0x99, 0x99, 0x99), new Color(0x77, 0x77, 0x77),
        new Color(0xc7, 0xa0, 0x6a), new Color(0x9c, 0x75, 0x3f), new Color(0x55, 0x55, 0x55)};
    int i = 0;
    for (Map.Entry<String, List<Double>> e : floorRatios.entrySet()) {
      chart.addSeries("floor " + e.getKey(), categories, e.getValue())
          .setFillColor(floorColors[i++ % floorColors.length]);
    }
    List<Double> ones = new ArrayList<>();
    categories.forEach(c -> ones.add(1.0));
    CategorySeries curator = chart.addSeries("Curator = 1.0", categories, ones);
    curator.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
    curator.setLineColor(new Color(0xd6, 0x27, 0x28));
    curator.setMarkerColor(new Color(0xd6, 0x27, 0x28));

    Files.createDirectories(png.toAbsolutePath().getParent());
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    return true;
  }
}
