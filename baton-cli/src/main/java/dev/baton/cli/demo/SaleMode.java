package dev.baton.cli.demo;

/** How the demo's buyers keep each other from selling the same item. */
public enum SaleMode {
  /** Each sale under the mutex, the stock write carrying the lease's fencing token. */
  LOCK("lock"),
  /** No lock: each sale a compare-and-set on the stock counter's version, retried on conflict. */
  CAS("cas"),
  /** Nothing at all ({@code --no-lock}): the same read-modify-write as under the lock, to show the oversell. */
  NO_LOCK("none");

  private final String option;

  SaleMode(String option) {
    this.option = option;
  }

  /** The value of {@code --mode} that selects it. */
  String option() {
    return option;
  }
}
