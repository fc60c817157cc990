package dev.baton.bench;

import dev.baton.Baton;

/**
 * One line of the comparison: a workload run by Baton, Curator and, where known, the raw request
 * patterns that bound it, interleaved round by round on one server.
 */
interface Scenario {

  /** Fixed name, as in results.json. */
  String name();

  ScenarioResult run(BenchContext context) throws Exception;
}
