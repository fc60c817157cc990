package dev.baton.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.bench.lock.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

  private static List<ScenarioResult> sample() {
    ScenarioResult rate = new ScenarioResult("mutex-uncontended", "cycles/s", true, "1 client");
    Series baton = rate.add(new Series("Baton Mutex", Role.BATON, 3));
    Series curator = rate.add(new Series("Curator InterProcessMutex", Role.CURATOR, 3));
    Series floor = rate.add(new Series("(c) raw", Role.FLOOR, 3));
    double[][] rounds = {{1600, 800, 1700}, {1500, 1000, 1500}, {2000, 800, 1600}};
    for (int r = 0; r < 3; r++) {
      baton.put(r, rounds[r][0]);
      curator.put(r, rounds[r][1]);
      floor.put(r, rounds[r][2]);
      baton.putExtra("p50Us", r, 600);
    }

    ScenarioResult time = new ScenarioResult("mutex-shared-500", "ms to all pass", false, "500 threads");
    time.add(new Series("Baton", Role.BATON, 2)).put(0, 500);
    Series curatorTime = time.add(new Series("Curator", Role.CURATOR, 2));
    curatorTime.put(0, 20_000); // ran in one round only

    ScenarioResult missing = ScenarioResult.notImplemented("mutex-cached-uncontended", "cycles/s", "not yet");
    return List.of(rate, time, missing);
  }

  @Test
  void jsonHasTheAgreedShape() throws Exception {
    JsonNode root = new ObjectMapper().readTree(Report.json(sample()).toString());
    assertEquals(1, root.size(), "only 'scenarios' at the top");
    JsonNode scenarios = root.get("scenarios");
    assertTrue(scenarios.isArray());
    for (JsonNode s : scenarios) {
      for (String field : List.of("name", "unit", "baton", "curator", "ratio")) {
        assertTrue(s.has(field), s.get("name") + " lacks " + field);
      }
    }
  }

  @Test
  void ratioIsTheMedianOfPerRoundRatiosWithMinAndMax() throws Exception {
    JsonNode s = new ObjectMapper().readTree(Report.json(sample()).toString()).get("scenarios").get(0);
    // per round 2.0, 1.5, 2.5: the median of ratios, not the ratio of medians (1600/800)
    assertEquals(2.0, s.get("ratio").asDouble());
    assertEquals(1.5, s.get("ratioMin").asDouble());
    assertEquals(2.5, s.get("ratioMax").asDouble());
    assertEquals(1600.0, s.get("baton").asDouble());
    assertEquals(800.0, s.get("curator").asDouble());
    assertEquals("(c) raw", s.get("floor").get(0).get("pattern").asText());
    assertEquals(2.0, s.get("floor").get(0).get("ratio").asDouble());
    assertEquals(600.0, s.get("batonMetrics").get("p50Us").asDouble());
  }

  @Test
  void timeScenariosInvertTheRatioAndCountOnlyRoundsWithBoth() throws Exception {
    JsonNode s = new ObjectMapper().readTree(Report.json(sample()).toString()).get("scenarios").get(1);
    assertEquals(40.0, s.get("ratio").asDouble());
    assertEquals(1, s.get("ratioRounds").asInt());
    assertFalse(s.get("higherIsBetter").asBoolean());
  }

  @Test
  void aScenarioNotImplementedHasNoFigures() throws Exception {
    JsonNode s = new ObjectMapper().readTree(Report.json(sample()).toString()).get("scenarios").get(2);
    assertTrue(s.get("baton").isNull());
    assertTrue(s.get("ratio").isNull());
    assertEquals("not implemented", s.get("status").asText());
  }

  @Test
  void tableSaysNotImplementedAndShowsTheFloor() {
    String table = Report.table(sample(), "header");
    assertTrue(table.contains("not implemented"), table);
    assertTrue(table.contains("2.00x [1.50-2.50]"), table);
    assertTrue(table.contains("(c) raw"), table);
  }
}
