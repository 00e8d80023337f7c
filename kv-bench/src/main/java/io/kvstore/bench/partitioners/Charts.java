package io.kvstore.bench.partitioners;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** The four pictures of the comparison, rendered headless to PNG with XChart. */
final class Charts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;

    private Charts() {
    }

    /** Keys per node divided by the mean, one series per partitioner. */
    static void loadPerNode(Path file, int nodes, Map<String, LoadStats> byPartitioner) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Load per node, " + nodes + " nodes, random keys (1.0 = perfectly even)")
                .xAxisTitle("node").yAxisTitle("keys / mean").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setOverlapped(false);
        List<Integer> nodeIndexes = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            nodeIndexes.add(i);
        }
        byPartitioner.forEach((name, stats) -> {
            double mean = 0;
            for (long k : stats.keysPerNode) {
                mean += k;
            }
            mean /= stats.keysPerNode.length;
            List<Double> relative = new ArrayList<>();
            for (long k : stats.keysPerNode) {
                relative.add(k / mean);
            }
            chart.addSeries(name, nodeIndexes, relative);
        });
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Peak/mean load of the ring against its number of virtual nodes per node, one line per cluster size. */
    static void ringVnodes(Path file, int[] vnodeCounts, Map<Integer, double[]> peakByNodes) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Ring: peak/mean load against virtual nodes per node (random keys)")
                .xAxisTitle("virtual nodes per node (log scale)").yAxisTitle("peak / mean").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        double[] x = new double[vnodeCounts.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = vnodeCounts[i];
        }
        peakByNodes.forEach((nodes, peaks) -> chart.addSeries(nodes + " nodes", x, peaks));
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Peak/mean replicated ownership of the ring as a cluster grows, one line per kind of tokens and RF. */
    static void ringGrowth(Path file, int[] sizes, Map<String, double[]> peakBySeries) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Ring: most loaded node's share of replicas over the mean, growing one node at a time")
                .xAxisTitle("nodes").yAxisTitle("peak / mean").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setMarkerSize(0);
        double[] x = new double[sizes.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = sizes[i];
        }
        peakBySeries.forEach((name, peaks) -> chart.addSeries(name, x, peaks));
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Percent of keys whose first replica moves when one node joins, per partitioner and cluster size. */
    static void keysMoved(Path file, int[] nodeCounts, Map<String, double[]> movedPercentByPartitioner)
            throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Keys moved when one node joins an n-node cluster")
                .xAxisTitle("n (nodes before the join)").yAxisTitle("% of keys moved").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        List<String> categories = new ArrayList<>();
        for (int n : nodeCounts) {
            categories.add(Integer.toString(n));
        }
        movedPercentByPartitioner.forEach((name, percents) -> {
            List<Double> values = new ArrayList<>();
            for (double p : percents) {
                values.add(p);
            }
            chart.addSeries(name, categories, values);
        });
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
