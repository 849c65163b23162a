/// A json output whose file the `pages` output of the same records writes beside its pages,
/// so that each record is rendered once for both: a page file holds the same elements as the
/// json array (`  {...}` separated by `,\n`, between the same `[\n` and `\n]\n`), cut ten
/// by ten (the shipped cities' `cities.json` and 23,256 pages: the records rendered twice were
/// about 5% of a first run's CPU samples).
///
/// Decided from the definitions, never from the bytes: both outputs write every record of
/// one collection as it is (no `where`, no `fixed-decimals`), the same fields in the same
/// order, placed by the same layout (or both without one). The pages output carries the
/// first such json output (and the snapshot's lines, when `SnapshotBeside` picks the pages).
struct PagesBeside {
    /// The pages output's position in the pipeline's outputs.
    let pages: Int
    /// The json output's position.
    let json: Int

    static func find(in outputs: [OutputDefinition]) -> [PagesBeside] {
        var found: [PagesBeside] = []
        var used: Set<Int> = []
        for (index, output) in outputs.enumerated() where !used.contains(index) {
            guard let pages = output.format as? PagesFormat, plain(output) else { continue }
            let match = outputs.indices.first { other in
                let candidate = outputs[other]
                guard !used.contains(other), let json = candidate.format as? JSONFormat else { return false }
                return plain(candidate) && candidate.collection == output.collection
                    && candidate.fields == output.fields && json.layout == pages.layout
            }
            guard let match else { continue }
            used.insert(index)
            used.insert(match)
            found.append(PagesBeside(pages: index, json: match))
        }
        return found
    }

    /// Writes every record of its collection as it is.
    private static func plain(_ output: OutputDefinition) -> Bool {
        output.isComplete && output.fixedDecimals.places.isEmpty
    }
}
