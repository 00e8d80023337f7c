package io.kvstore.bench.partitioners;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The counts behind the figure, on a few keys, so that it cannot rot. */
class ChangeStreamingTest {
    private static final List<String> FIVE = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4", "http://e:5");

    /**
     * Under modn a decommission moves keys between the nodes that stay: the plan sends each gainer one
     * copy (the ideal), the replaced rule more; a removal's plan sends more than the ideal (every live
     * replica of the dead node's keys sends) but less than the replaced rule (the other keys are paired).
     */
    @Test
    void thePlanSendsTheIdealOnADecommissionAndLessThanTheReplacedRuleOnARemoval() {
        byte[][] keys = ChangeStreaming.keys(5_000, 1);
        ClusterMap leaving = ClusterMap.seed(FIVE, 3, "modn", 16).withState(FIVE.get(2), NodeState.LEAVING);
        ChangeStreaming.Count decommission = ChangeStreaming.count(KeyMovement.decommission(1, leaving, FIVE.get(2)), keys);
        assertEquals(decommission.ideal(), decommission.streamed());
        assertTrue(decommission.replacedRule() > decommission.ideal(), decommission.toString());
        ChangeStreaming.Count removal = ChangeStreaming.count(KeyMovement.removal(1, leaving, leaving.without(FIVE.get(2))), keys);
        assertTrue(removal.streamed() > removal.ideal() && removal.streamed() < removal.replacedRule(), removal.toString());
    }
}
