package dev.baton.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * The server's own counters, read with the {@code mntr} four-letter word. A four-letter word is
 * answered on a connection of its own, outside any session; whether it counts as a packet is
 * measured rather than assumed ({@link #readingCost()}).
 */
final class ServerCounters {
  private final String host;
  private final int port;

  ServerCounters(String host, int port) {
    this.host = host;
    this.port = port;
  }

  Map<String, String> mntr() throws IOException {
    String text;
    try {
      text = FourLetterWordMain.send4LetterWord(host, port, "mntr");
    } catch (org.apache.zookeeper.common.X509Exception.SSLContextException e) {
      throw new IOException("mntr on " + host + ":" + port + " failed", e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        values.put(line.substring(0, tab).trim(), line.substring(tab + 1).trim());
      }
    }
    return values;
  }

  long packetsReceived() throws IOException {
    String value = mntr().get("zk_packets_received");
    if (value == null) {
      throw new IOException("mntr on " + host + ":" + port + " has no zk_packets_received");
    }
    return Long.parseLong(value);
  }

  /**
   * Packets counted between two readings with nothing else in between: the least over a few
   * pairs, because a client's ping can land between one pair and must not pass for the cost.
   */
  long readingCost() throws IOException {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long first = packetsReceived();
      least = Math.min(least, packetsReceived() - first);
    }
    return least;
  }
}
