package io.kvstore.bench.peers;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The tests of kv-core's contract suites that a peer store cannot pass, each skipped with the reason, so
 * that the test report says which parts of the contract each peer keeps without copying the suites.
 */
final class ContractGaps implements ExecutionCondition {
    /** What no peer can do: it has no tables of ours for {@link io.kvstore.core.Dao#properties()} to count. */
    private static final Map<String, String> EVERY_PEER = Map.of("propertiesCountAFlushedTable",
            "a peer reports no properties: it has no memtable and tables of ours to count");

    private final Map<String, String> reasons;

    private ContractGaps(Map<String, String> reasons) {
        this.reasons = reasons;
    }

    /** The gaps of every peer, and {@code more} (test method name, reason, ...). */
    static ContractGaps of(String... more) {
        Map<String, String> reasons = new HashMap<>(EVERY_PEER);
        for (int i = 0; i < more.length; i += 2) {
            reasons.put(more[i], more[i + 1]);
        }
        return new ContractGaps(reasons);
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String reason = context.getTestMethod().map(method -> reasons.get(method.getName())).orElse(null);
        return reason == null ? ConditionEvaluationResult.enabled("kept by this peer")
                : ConditionEvaluationResult.disabled(reason);
    }
}
