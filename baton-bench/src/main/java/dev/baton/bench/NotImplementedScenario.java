package dev.baton.bench;

/**
 * A scenario whose Baton side does not exist yet. It is listed so the gap shows, and given no
 * figure: nothing is run, nothing is estimated.
 */
final class NotImplementedScenario implements Scenario {
  private final String name;
  private final String unit;
  private final String why;

  NotImplementedScenario(String name, String unit, String why) {
    this.name = name;
    this.unit = unit;
    this.why = why;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ScenarioResult run(BenchContext context) {
    return ScenarioResult.notImplemented(name, unit, why);
  }
}
