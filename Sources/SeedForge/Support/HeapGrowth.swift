import CSeedForgeSupport

/// How the process's heap grows. glibc grows a thread's heap (an arena other than the main
/// one) only by the pages the allocation at hand needs, one `mprotect` a step: reading the
/// 1M-row CSV bench made about 17,800 of them (and 590 `brk` on the main heap), each
/// changing the process's memory map under its lock while the other thread faults pages in.
public enum HeapGrowth {
    /// Bytes a heap grows beyond what an allocation needs (untouched pages: no memory until
    /// written).
    public static let padding = 64 << 20

    /// Grows heaps in steps of `padding`; called once, at the start of the executable.
    public static func padSteps() {
        seedforge_pad_heap_growth(padding)
    }
}
