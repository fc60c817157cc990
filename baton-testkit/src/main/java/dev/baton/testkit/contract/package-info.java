/**
 * The conformance suite: the written contract of {@link dev.baton.Coordinator} and what it hands
 * out, as abstract JUnit 5 classes ({@code *Contract}) that every backend module runs against its
 * real server.
 *
 * <p>To run it on a backend: extend {@link dev.baton.testkit.contract.ContractBackendExtension}
 * once (start, stop and restart the server; connect a client to a {@code host:port} with a given
 * lease timeout), declare {@link dev.baton.testkit.contract.ContractBackend#features() features}
 * and {@link dev.baton.testkit.contract.ContractBackend#notPromised() non-promises}, and add one
 * {@code <Backend><Name>ContractTest extends <Name>Contract} per contract class that registers the
 * fixture with {@code @RegisterExtension} and returns it from {@code backend()}.
 *
 * <p>Nothing is skipped: a feature the backend lacks is checked to be refused with an {@link
 * UnsupportedOperationException} naming the backend and the feature, and a case it does not
 * promise is run expecting the outcome its {@link dev.baton.testkit.contract.Promise} declares. A
 * case that finds a defect the backend cannot fix yet is overridden in that backend's test class
 * with {@code @Disabled("defect: ...")}, so the exception is visible where the backend is.
 */
package dev.baton.testkit.contract;
