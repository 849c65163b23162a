/// What `group-stats` knows of one group after seeing some of its records, mergeable with
/// what it knows after seeing others (a shard's records: `ShardGroupStats`): counts add up;
/// sums are exact (`NumberTotal`, order-free while `isOrderFree`); a `min`, `max` and each
/// `mode` candidate keep the value first seen, and so do the group fields. "First" is
/// input order: within the records summarised together, the first; between summaries, the
/// one whose first record's file comes first (`file`, a number the caller orders: a file's
/// records are all in one shard).
struct GroupSummary {
    /// A value met in a group, with its exact key and the file of its first record.
    struct Pick {
        var key: ByteKey
        var value: Value
        var file: Int
        var count = 1
    }

    /// The group fields' values of the group's first record, and its file.
    var values: [Value]
    var file: Int
    var count = 0
    /// By metric (each array has one entry per metric; the others' stay empty): records
    /// where the `count-where` field is true; totals of `mean` and `sum`; the least or
    /// greatest value of `min` and `max`; the values of `mode`, by exact key.
    var counts: [Int]
    var totals: [NumberTotal]
    var picks: [Pick?]
    var modes: [[ByteKey: Pick]]

    init(values: [Value], file: Int, metrics: Int) {
        self.values = values
        self.file = file
        counts = [Int](repeating: 0, count: metrics)
        totals = [NumberTotal](repeating: NumberTotal(), count: metrics)
        picks = [Pick?](repeating: nil, count: metrics)
        modes = [[ByteKey: Pick]](repeating: [:], count: metrics)
    }

    /// Adds a record of the group (after those added before, in input order).
    mutating func add(_ record: Record, file: Int, metrics: [(name: String, metric: GroupStats.Metric)]) {
        count += 1
        func taken(_ condition: FieldID?) -> Bool { condition.map { record[$0] == .bool(true) } ?? true }
        for (number, (_, metric)) in metrics.enumerated() {
            switch metric {
            case .count: break
            case .countWhere(let field): if record[field] == .bool(true) { counts[number] += 1 }
            case .mean(let field, let condition), .sum(let field, let condition):
                if taken(condition) { totals[number].add(record[field]) }
            case .mode(let field, let condition):
                // Counted by exact key, so 4 and 4.0 are one value (the first seen).
                guard taken(condition), !record[field].isNull else { continue }
                var key = ByteKey()
                key.append(record[field], text: .exact)
                if modes[number][key] != nil {
                    modes[number][key]!.count += 1
                } else {
                    modes[number][key] = Pick(key: key, value: record[field], file: file)
                }
            case .min(let field, let condition), .max(let field, let condition):
                guard taken(condition), !record[field].isNull else { continue }
                var key = ByteKey()
                key.append(record[field], text: .exact)
                // Only a strictly lesser (greater) value replaces: ties keep the first.
                var isMin = false
                if case .min = metric { isMin = true }
                if let pick = picks[number], isMin ? !(key < pick.key) : !(pick.key < key) { continue }
                picks[number] = Pick(key: key, value: record[field], file: file)
            }
        }
    }

    /// Adds what another summary of the same group saw; `least[m]` tells whether metric
    /// m's picks keep the least value (`GroupStats.picksLeast`), `earlier(a, b)` whether
    /// file `a`'s records come before file `b`'s. Associative: summaries merged in any
    /// grouping and order give the same summary.
    mutating func merge(_ other: GroupSummary, least: [Bool], earlier: (Int, Int) -> Bool) {
        if earlier(other.file, file) {
            values = other.values
            file = other.file
        }
        count += other.count
        for number in counts.indices {
            counts[number] += other.counts[number]
            totals[number].add(other.totals[number])
            for (key, pick) in other.modes[number] {
                guard var mine = modes[number][key] else {
                    modes[number][key] = pick
                    continue
                }
                mine.count += pick.count
                if earlier(pick.file, mine.file) {
                    mine.value = pick.value
                    mine.file = pick.file
                }
                modes[number][key] = mine
            }
            guard let theirs = other.picks[number] else { continue }
            guard let mine = picks[number] else {
                picks[number] = theirs
                continue
            }
            let better = least[number] ? theirs.key < mine.key : mine.key < theirs.key
            if better || (theirs.key == mine.key && earlier(theirs.file, mine.file)) { picks[number] = theirs }
        }
    }

    /// The summary with its files renumbered by `numbers` (partials merged).
    mutating func renumberFiles(_ numbers: [Int]) {
        file = numbers[file]
        for number in picks.indices {
            if let pick = picks[number] { picks[number]!.file = numbers[pick.file] }
            for key in modes[number].keys { modes[number][key]!.file = numbers[modes[number][key]!.file] }
        }
    }

    /// The most frequent value of a `mode` metric; ties go to the lowest in exact order.
    func mode(_ number: Int) -> Value {
        modes[number].values.min { $0.count != $1.count ? $0.count > $1.count : $0.key < $1.key }?.value ?? .null
    }
}
