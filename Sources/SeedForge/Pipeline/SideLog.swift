/// The entries of a side output a run gathers as it goes (the duplicates a dedupe removes),
/// in order. They are held as values, as every side output always was, until the ones held
/// pass a byte budget while the run is past its memory limit; from then on each entry is
/// rendered as its line when it arrives (the held ones first) and the lines are written to
/// a spill file a megabyte at a time. So what a run holds for them no longer grows with its
/// input: the 5M reference job under 16 MiB held 97,413 duplicates, each with its record,
/// key and winner's location (about 500 bytes a duplicate, 60 MiB of its 195 MiB peak);
/// rendered, a duplicate takes about 240 bytes on disk and none in memory. Written out, the
/// lines on disk come first, then the ones rendered since, byte for byte what rendering
/// every held entry at the end gives.
final class SideLog<Entry> {
    /// The entries held as values: all of them until the log renders (none after).
    private(set) var entries: [Entry] = []
    /// Entries appended in all.
    private(set) var count = 0
    /// Bytes the held entries take (as `size` estimates them).
    private(set) var heldBytes = 0
    /// Bytes of held entries past which an entry appended `pastLimit` renders the log.
    let budget: Int
    private let size: (Entry) -> Int
    private let render: (Entry, inout JSONWriter) -> Void
    private let newFile: () throws -> SpillFile
    /// Lines rendered and not yet written to `file`.
    private var pending = JSONWriter()
    private var file: SpillFile?
    private var written = 0
    /// A write that failed (a full disk): the lines stay in memory, and `write` throws it.
    private var failure: Error?
    /// Entries that arrived while the log renders, rendered together once they are
    /// `SideOutputs.batch` or pass the budget (or 8 MiB), on every core: one by one, the
    /// duplicates of the 20M-city job took 2 s on one thread.
    private var unrendered: [Entry] = []
    private var unrenderedBytes = 0
    let threads: Threads

    init(
        budget: Int, size: @escaping (Entry) -> Int, render: @escaping (Entry, inout JSONWriter) -> Void,
        newFile: @escaping () throws -> SpillFile, threads: Threads = 1
    ) {
        self.budget = budget
        self.size = size
        self.render = render
        self.newFile = newFile
        self.threads = threads
    }

    /// Whether entries are rendered as they arrive.
    private(set) var renders = false

    /// Appends an entry. `pastLimit`: it comes from a step working past the memory limit,
    /// where the log renders once the entries held pass the budget (rendering needs every
    /// input file's path settled, so the caller says when it may).
    func append(_ entry: Entry, pastLimit: Bool = false) {
        count += 1
        if renders {
            unrendered.append(entry)
            unrenderedBytes += size(entry)
            if unrendered.count >= SideOutputs.batch || unrenderedBytes > min(budget, 8 << 20) {
                renderUnrendered()
                flush(over: SideOutputs.piece)
            }
            return
        }
        entries.append(entry)
        heldBytes += size(entry)
        guard pastLimit, heldBytes > budget else { return }
        renders = true
        swap(&entries, &unrendered)
        heldBytes = 0
        renderUnrendered()
        flush(over: 0)
    }

    /// Renders the entries not yet rendered onto the pending lines, in order.
    private func renderUnrendered() {
        let entries = unrendered
        let render = render
        let pieces = Parallel.chunks(entries.count, threads: threads, minimumChunk: 1_024) { range in
            var writer = JSONWriter()
            for entry in entries[range] { render(entry, &writer) }
            return writer.bytes
        }
        for piece in pieces { pending.append(bytes: piece) }
        unrendered.removeAll(keepingCapacity: true)
        unrenderedBytes = 0
    }

    private func flush(over threshold: Int) {
        guard failure == nil, pending.bytes.count >= max(1, threshold) else { return }
        do {
            if file == nil { file = try newFile() }
            _ = try file!.append(pending.bytes)
            written += pending.bytes.count
            pending.clear()
        } catch {
            failure = error
        }
    }

    /// Hands the whole log to `write` about a megabyte at a time, in order: the lines on
    /// disk, the lines pending, or the held entries rendered.
    func write(to write: ([UInt8]) throws -> Void) throws {
        if let failure { throw failure }
        if let file {
            var offset = 0
            while offset < written {
                let length = min(SideOutputs.piece, written - offset)
                try write(file.read(at: offset, count: length))
                offset += length
            }
        }
        if !pending.bytes.isEmpty { try write(pending.bytes) }
        // Held entries, or entries not yet rendered: never both.
        let rest = renders ? unrendered : entries
        let render = render
        try SideOutputs.lines(count: rest.count, threads: threads, render: { render(rest[$0], &$1) }, to: write)
    }
}
