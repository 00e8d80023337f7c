package io.kvstore.core.internal.util;

/**
 * A binary min-heap of the indices {@code 0 .. capacity - 1} (the sources of a k-way merge) under an
 * order the caller defines over them, such as the keys its sources are on. An index's place is fixed
 * when it is pushed: a source moves on only while out of the heap (popped, advanced, pushed again).
 */
public final class IndexHeap {

    /** The order of the heap: whether index {@code a} comes before index {@code b}. */
    @FunctionalInterface
    public interface Order {
        boolean less(int a, int b);
    }

    private final int[] heap;
    private final Order order;
    private int size;

    public IndexHeap(int capacity, Order order) {
        this.heap = new int[capacity];
        this.order = order;
    }

    public int size() {
        return size;
    }

    /** The first index, still in the heap. REQUIRES: not empty. */
    public int peek() {
        return heap[0];
    }

    public void clear() {
        size = 0;
    }

    public void push(int index) {
        int at = size++;
        heap[at] = index;
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!order.less(heap[at], heap[parent])) {
                break;
            }
            swap(at, parent);
            at = parent;
        }
    }

    /** Removes and returns the first index. REQUIRES: not empty. */
    public int pop() {
        int top = heap[0];
        heap[0] = heap[--size];
        int at = 0;
        while (true) {
            int left = 2 * at + 1;
            if (left >= size) {
                break;
            }
            int smallest = left + 1 < size && order.less(heap[left + 1], heap[left]) ? left + 1 : left;
            if (!order.less(heap[smallest], heap[at])) {
                break;
            }
            swap(at, smallest);
            at = smallest;
        }
        return top;
    }

    private void swap(int a, int b) {
        int t = heap[a];
        heap[a] = heap[b];
        heap[b] = t;
    }
}
